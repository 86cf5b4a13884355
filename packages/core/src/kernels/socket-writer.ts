/** A ZeroMQ socket that sends multipart messages (DEALER, ROUTER, PUB). */
export interface SendingSocket {
  send(frames: Uint8Array[]): Promise<void>;
}

/**
 * Serializes sends on one ZeroMQ socket: zeromq.js allows only one pending `send()` per socket,
 * so while one waits (peer slow or reconnecting) later messages wait in a bounded queue.
 */
export class SocketWriter {
  readonly #socket: SendingSocket;
  readonly #limit: number;
  readonly #queue: Uint8Array[][] = [];
  #busy = false;
  #closed = false;
  dropped = 0;

  constructor(socket: SendingSocket, limit = 10_000) {
    this.#socket = socket;
    this.#limit = limit;
  }

  write(frames: Uint8Array[]): void {
    if (this.#closed) return;
    if (this.#busy) {
      if (this.#queue.length < this.#limit) this.#queue.push(frames);
      else this.dropped++;
      return;
    }
    this.#send(frames);
  }

  #send(frames: Uint8Array[]): void {
    this.#busy = true;
    this.#socket.send(frames).then(
      () => this.#next(),
      () => this.#next(), // closed socket or timeout: the message is lost with the connection
    );
  }

  #next(): void {
    this.#busy = false;
    if (this.#closed) return;
    const frames = this.#queue.shift();
    if (frames) this.#send(frames);
  }

  close(): void {
    this.#closed = true;
    this.#queue.length = 0;
  }
}
