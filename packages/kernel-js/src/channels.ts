import * as protocol from '@nbserve/core/protocol';
import { ZmtpListener } from '@nbserve/core/zmtp';
import { type ConnectionInfo, endpoint, type PortName } from './connection.js';

type JupyterMessage = protocol.JupyterMessage;

/** A request as received on a ROUTER socket, with the identities to answer it. */
export interface Incoming {
  identities: Uint8Array[];
  message: JupyterMessage;
}

/** Signatures already seen; a replayed message is dropped like a forged one. */
const REPLAY_WINDOW = 10_000;

/** Sends on one socket are chained, so a send waiting for room keeps its place in line. */
class SerialSender {
  #tail: Promise<unknown> = Promise.resolve();
  constructor(private readonly socket: ZmtpListener) {}
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

/**
 * The five kernel sockets of one connection file, bound and signing with its key: the server's
 * own ZMTP code (`@nbserve/core/zmtp`), so the kernel needs no native ZeroMQ.
 */
export class KernelChannels {
  readonly shell = new ZmtpListener('ROUTER');
  readonly control = new ZmtpListener('ROUTER');
  /** Mandatory: an input_request to a client whose stdin is not connected is reported, not dropped. */
  readonly stdin = new ZmtpListener('ROUTER', { mandatory: true });
  /** Its subscriptions are visible (as XPUB's), so every new subscriber gets an `iopub_welcome` (5.5). */
  readonly iopub = new ZmtpListener('PUB');
  readonly hb = new ZmtpListener('REP');
  readonly signer: protocol.Signer;
  readonly #senders = new Map<ZmtpListener, SerialSender>();
  readonly #seen = new Set<string>();

  constructor(readonly info: ConnectionInfo) {
    this.signer = new protocol.Signer(info.key, info.signature_scheme);
    for (const socket of [this.shell, this.control, this.stdin, this.iopub, this.hb]) {
      this.#senders.set(socket, new SerialSender(socket));
    }
  }

  /** Binds every socket; ports given as 0 are chosen now and written back into `info`. */
  async bind(): Promise<ConnectionInfo> {
    const pairs: [PortName, ZmtpListener][] = [
      ['shell_port', this.shell],
      ['control_port', this.control],
      ['stdin_port', this.stdin],
      ['iopub_port', this.iopub],
      ['hb_port', this.hb],
    ];
    const info = { ...this.info };
    await Promise.all(
      pairs.map(async ([name, socket]) => {
        info[name] = await socket.bind(endpoint(info, info[name]));
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
    socket: ZmtpListener,
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
