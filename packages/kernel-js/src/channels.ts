import { createRequire } from 'node:module';
import * as protocol from '@nbserve/core/protocol';
import type * as Zmq from 'zeromq';

// zeromq is CommonJS: require() skips the ESM loader's export scan of it at every kernel start.
const zmq = createRequire(import.meta.url)('zeromq') as typeof Zmq;

import { type ConnectionInfo, endpoint, type PortName } from './connection.js';

type JupyterMessage = protocol.JupyterMessage;

/** A request as received on a ROUTER socket, with the identities to answer it. */
export interface Incoming {
  identities: Uint8Array[];
  message: JupyterMessage;
}

/** Signatures already seen; a replayed message is dropped like a forged one. */
const REPLAY_WINDOW = 10_000;

/** zeromq@6 allows one send in flight per socket: sends are chained. */
class SerialSender {
  #tail: Promise<unknown> = Promise.resolve();
  constructor(private readonly socket: Zmq.Writable) {}
  /** Resolves false when the message could not be delivered (logged, never thrown). */
  send(frames: Uint8Array[], unroutableRetries = 0): Promise<boolean> {
    const attempt = async (): Promise<boolean> => {
      for (let retry = 0; ; retry++) {
        try {
          await this.socket.send(frames);
          return true;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EHOSTUNREACH' && retry < unroutableRetries) {
            await new Promise((r) => setTimeout(r, UNROUTABLE_RETRY_MS));
            continue;
          }
          process.stderr.write(`kernel-js: send failed: ${(error as Error).message}\n`);
          return false;
        }
      }
    };
    const result = this.#tail.then(attempt);
    this.#tail = result;
    return result;
  }
}

/** A client's stdin socket may connect a moment after its execute_request: wait up to 3 s. */
const UNROUTABLE_RETRY_MS = 100;
const STDIN_RETRIES = 30;

/** The five kernel sockets of one connection file, bound and signing with its key. */
export class KernelChannels {
  readonly shell = new zmq.Router();
  readonly control = new zmq.Router();
  readonly stdin = new zmq.Router();
  /** XPUB: subscriptions are visible, so every new subscriber gets an `iopub_welcome` (5.5). */
  readonly iopub = new zmq.XPublisher();
  readonly hb = new zmq.Reply();
  readonly signer: protocol.Signer;
  readonly #senders = new Map<Zmq.Writable, SerialSender>();
  readonly #seen = new Set<string>();

  constructor(readonly info: ConnectionInfo) {
    this.signer = new protocol.Signer(info.key, info.signature_scheme);
    for (const socket of [this.shell, this.control, this.stdin, this.iopub, this.hb]) {
      socket.linger = 0;
      this.#senders.set(socket, new SerialSender(socket));
    }
    this.iopub.sendHighWaterMark = 100_000;
    this.iopub.verbosity = 'allSubs';
    // Report an input_request to a client whose stdin is not connected instead of dropping it.
    this.stdin.mandatory = true;
  }

  /** Binds every socket; ports given as 0 are chosen now and written back into `info`. */
  async bind(): Promise<ConnectionInfo> {
    const pairs: [PortName, Zmq.Socket][] = [
      ['shell_port', this.shell],
      ['control_port', this.control],
      ['stdin_port', this.stdin],
      ['iopub_port', this.iopub],
      ['hb_port', this.hb],
    ];
    const info = { ...this.info };
    // All at once: each bind is a round trip to ZeroMQ's I/O thread.
    await Promise.all(
      pairs.map(async ([name, socket]) => {
        await socket.bind(endpoint(info, info[name]));
        const bound = socket.lastEndpoint ?? '';
        info[name] = Number(/:(\d+)$/.exec(bound)?.[1] ?? /-(\d+)$/.exec(bound)?.[1] ?? info[name]);
      }),
    );
    return info;
  }

  /** Parses and authenticates one multipart message; null when it must be ignored. */
  decode(frames: Uint8Array[]): Incoming | null {
    try {
      const wire = protocol.decodeWire(frames);
      if (!this.signer.verify(wire.signature, wire.raw)) return null;
      if (this.signer.enabled) {
        const signature = Buffer.from(wire.signature).toString('latin1');
        if (this.#seen.has(signature)) return null;
        this.#seen.add(signature);
        if (this.#seen.size > REPLAY_WINDOW) this.#seen.delete(this.#seen.values().next().value as string);
      }
      const message = protocol.fromRaw(wire.raw);
      if (typeof message.header?.msg_type !== 'string' || typeof message.content !== 'object' || !message.content) {
        return null;
      }
      return { identities: wire.identities, message };
    } catch {
      return null;
    }
  }

  send(
    socket: Zmq.Writable,
    message: protocol.JupyterMessage<unknown>,
    identities: Uint8Array[] = [],
  ): Promise<boolean> {
    const frames = protocol.encodeWire(protocol.toRaw(message), this.signer, identities);
    const retries = socket === this.stdin ? STDIN_RETRIES : 0;
    return (this.#senders.get(socket) as SerialSender).send(frames, retries);
  }

  close(): void {
    for (const socket of [this.shell, this.control, this.stdin, this.iopub, this.hb]) socket.close();
  }
}
