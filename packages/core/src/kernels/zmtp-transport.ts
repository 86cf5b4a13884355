import { randomUUID } from 'node:crypto';
import { Signer } from '../protocol/signing.js';
import type { RawMessage } from '../protocol/types.js';
import { decodeWire, encodeWire } from '../protocol/wire.js';
import { endpoint } from './connection-file.js';
import { SocketWriter } from './socket-writer.js';
import type { BadMessage, ChannelSet, KernelTransport, RequestChannel } from './transport.js';
import type { ConnectionInfo } from './types.js';
import { ZmtpSocket } from './zmtp-socket.js';

/**
 * Options for every socket that connects to a kernel. The server connects right after spawning
 * the kernel, before it has bound its ports; retries start at 10 ms (libzmq's default would wait
 * 100 ms plus jitter, which every kernel start would pay) and back off to 1 s (a dead kernel is
 * not polled hard).
 */
export const KERNEL_SOCKET_OPTIONS = { reconnectInterval: 10, reconnectMaxInterval: 1000 } as const;

/** A local kernel's ZeroMQ ports, spoken to with the server's own ZMTP sockets (zmtp-socket.ts). */
export class ZmtpTransport implements KernelTransport {
  readonly connection: ConnectionInfo;
  readonly signer: Signer;
  onBadMessage: (kind: BadMessage) => void = () => {};

  constructor(connection: ConnectionInfo) {
    this.connection = connection;
    this.signer = new Signer(connection.key, connection.signature_scheme);
  }

  #endpoint(channel: RequestChannel | 'iopub' | 'hb'): string {
    const info = this.connection;
    const ports = {
      shell: info.shell_port,
      control: info.control_port,
      stdin: info.stdin_port,
      iopub: info.iopub_port,
      hb: info.hb_port,
    };
    return endpoint(info, ports[channel]);
  }

  /** The message in `frames` if it is a wire message signed with the kernel's key. */
  #verified(frames: Uint8Array[]): RawMessage | undefined {
    try {
      const wire = decodeWire(frames);
      if (this.signer.verify(wire.signature, wire.raw)) return wire.raw;
      this.onBadMessage('signature');
    } catch {
      this.onBadMessage('malformed');
    }
    return undefined;
  }

  async #receive(socket: ZmtpSocket, deliver: (raw: RawMessage) => void): Promise<void> {
    try {
      for await (const frames of socket) {
        const raw = this.#verified(frames);
        if (raw) deliver(raw);
      }
    } catch {
      // closed
    }
  }

  subscribe(onMessage: (raw: RawMessage) => void): { close(): void } {
    // No receive limit: iopub is read as fast as it comes, and a paused SUB would lose the kernel's messages.
    const socket = new ZmtpSocket('SUB', { ...KERNEL_SOCKET_OPTIONS, receiveHighWaterMark: 0 });
    socket.subscribe();
    socket.connect(this.#endpoint('iopub'));
    void this.#receive(socket, onMessage);
    return { close: () => socket.close() };
  }

  open(
    routingId: string,
    channels: readonly RequestChannel[],
    onMessage: (channel: RequestChannel, raw: RawMessage) => void,
  ): ChannelSet {
    const open = new Map<RequestChannel, { socket: ZmtpSocket; writer: SocketWriter }>();
    // In the order given: a client names stdin first, since the kernel's ROUTER drops an
    // input_request for an id it has not seen on stdin yet.
    for (const channel of channels) {
      const socket = new ZmtpSocket('DEALER', { ...KERNEL_SOCKET_OPTIONS, routingId });
      socket.connect(this.#endpoint(channel));
      open.set(channel, { socket, writer: new SocketWriter(socket) });
      void this.#receive(socket, (raw) => onMessage(channel, raw));
    }
    return {
      send: (channel, raw) => open.get(channel)?.writer.write(encodeWire(raw, this.signer)),
      close: () => {
        for (const { socket, writer } of open.values()) {
          writer.close();
          socket.close();
        }
        open.clear();
      },
    };
  }

  async heartbeat(timeoutMs: number): Promise<boolean> {
    const socket = new ZmtpSocket('REQ', KERNEL_SOCKET_OPTIONS);
    let timer: NodeJS.Timeout | undefined;
    try {
      socket.connect(this.#endpoint('hb'));
      const ping = Buffer.from(randomUUID());
      const echo = (async () => {
        await socket.send([ping]);
        for await (const [frame] of socket) return frame;
        return undefined;
      })();
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      });
      const answer = await Promise.race([echo, timeout]);
      return answer !== undefined && Buffer.compare(answer, ping) === 0;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      socket.close();
    }
  }

  close(): void {}
}
