import { randomUUID } from 'node:crypto';
import type { Signer } from '../protocol/signing.js';
import type { RawMessage } from '../protocol/types.js';
import { decodeWire, encodeWire } from '../protocol/wire.js';
import { endpoint } from './connection-file.js';
import { SocketWriter } from './socket-writer.js';
import type { ConnectionInfo } from './types.js';
import { KERNEL_SOCKET_OPTIONS } from './zmq.js';
import { ZmtpSocket } from './zmtp-socket.js';

export type ClientChannel = 'shell' | 'control' | 'stdin';

/** What a KernelClient needs from its kernel; implemented by Kernel. */
export interface ClientHost {
  /** Where clients connect; undefined until the kernel is ready (sends are queued meanwhile). */
  readonly clientConnection: ConnectionInfo | undefined;
  readonly signer: Signer | undefined;
  noteActivity(): void;
  countBadMessage(kind: 'signature' | 'malformed'): void;
  reportListenerError(error: unknown): void;
  removeClient(client: KernelClient): void;
}

interface Channels {
  shell: ZmtpSocket;
  control: ZmtpSocket;
  stdin: ZmtpSocket;
  writers: Record<ClientChannel, SocketWriter>;
}

const MAX_QUEUED_WHILE_DETACHED = 1000;

/**
 * One frontend's private shell/control/stdin DEALER sockets to a kernel. Shell and stdin share
 * one routing identity, so the kernel sends `input_request`s to the client whose code asked.
 * Replies therefore reach only the client that sent the request. Survives kernel restarts:
 * the kernel re-attaches it to the new ports.
 */
export class KernelClient {
  readonly identity: string;
  /** Receives verified replies and stdin requests: the JSON parts as the kernel serialized them. */
  onMessage: (channel: ClientChannel, raw: RawMessage) => void = () => {};
  readonly #host: ClientHost;
  #channels: Channels | undefined;
  #pending: Array<[ClientChannel, RawMessage]> = [];
  #closed = false;

  constructor(host: ClientHost) {
    this.#host = host;
    this.identity = randomUUID();
    if (host.clientConnection) this.attach(host.clientConnection);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Signs and sends a message; queued (bounded) while the kernel is starting or restarting. */
  send(channel: ClientChannel, raw: RawMessage): void {
    if (this.#closed) return;
    this.#host.noteActivity();
    const channels = this.#channels;
    const signer = this.#host.signer;
    if (!channels || !signer) {
      if (this.#pending.length < MAX_QUEUED_WHILE_DETACHED) this.#pending.push([channel, raw]);
      return;
    }
    channels.writers[channel].write(encodeWire(raw, signer));
  }

  /** Connects (or reconnects after a restart) to the kernel's current ports. */
  attach(info: ConnectionInfo): void {
    if (this.#closed) return;
    this.detach();
    const make = (port: number) => {
      const socket = new ZmtpSocket('DEALER', { ...KERNEL_SOCKET_OPTIONS, routingId: this.identity });
      socket.connect(endpoint(info, port));
      return socket;
    };
    // stdin first: the kernel's ROUTER drops an input_request for an identity it has not seen on
    // stdin yet, so that handshake should be under way before any request reaches shell.
    const stdin = make(info.stdin_port);
    const shell = make(info.shell_port);
    const control = make(info.control_port);
    const channels: Channels = {
      shell,
      control,
      stdin,
      writers: { shell: new SocketWriter(shell), control: new SocketWriter(control), stdin: new SocketWriter(stdin) },
    };
    void this.#receive(shell, 'shell');
    void this.#receive(control, 'control');
    void this.#receive(stdin, 'stdin');
    this.#channels = channels;
    const pending = this.#pending;
    this.#pending = [];
    for (const [channel, raw] of pending) this.send(channel, raw);
  }

  /** Closes the sockets (kernel going away or restarting). */
  detach(): void {
    const channels = this.#channels;
    if (!channels) return;
    this.#channels = undefined;
    for (const writer of Object.values(channels.writers)) writer.close();
    channels.shell.close();
    channels.control.close();
    channels.stdin.close();
  }

  close(): void {
    if (this.#closed) return;
    this.detach();
    this.#closed = true;
    this.#pending = [];
    this.#host.removeClient(this);
  }

  async #receive(socket: ZmtpSocket, channel: ClientChannel): Promise<void> {
    try {
      for await (const frames of socket) {
        const signer = this.#host.signer;
        if (!signer) continue;
        let raw: RawMessage;
        try {
          const wire = decodeWire(frames);
          if (!signer.verify(wire.signature, wire.raw)) {
            this.#host.countBadMessage('signature');
            continue;
          }
          raw = wire.raw;
        } catch {
          this.#host.countBadMessage('malformed');
          continue;
        }
        this.#host.noteActivity();
        try {
          this.onMessage(channel, raw);
        } catch (error) {
          // A faulty consumer must not stop the receive loop of this socket.
          this.#host.reportListenerError(error);
        }
      }
    } catch {
      // The socket was closed while waiting: normal on detach.
    }
  }
}
