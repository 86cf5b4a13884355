/** How an inbox slows its peers down while its reader is behind. */
export interface InboxFlow<T> {
  /** Received messages kept for the reader before `pause` is called; 0: no limit. */
  highWater: number;
  /** Stop reading from the peers (called again for each message past the limit). */
  pause(): void;
  /** Read from the peers again (called whenever the reader is below half the limit or waits). */
  resume(): void;
  /** What the reader gets for a received message, called as it takes it (REP remembers whom to answer). */
  take(received: T): Buffer[];
}

/**
 * The received messages of a ZeroMQ socket, bind side (zmtp-listener.ts) or connect side
 * (zmtp-socket.ts), and their async iteration as zeromq.js has it: a message goes straight to a
 * reader waiting for one, else it waits here; past the high-water mark reading from the peers
 * pauses until the reader has caught up to half of it.
 */
export class ZmtpInbox<T> {
  readonly #flow: InboxFlow<T>;
  #queue: T[] = [];
  #reader: ((result: IteratorResult<Buffer[]>) => void) | undefined;
  #closed = false;

  constructor(flow: InboxFlow<T>) {
    this.#flow = flow;
  }

  /** A message from a peer: to the waiting reader, or kept for the next `next()`. */
  /** Messages received and not taken yet. */
  get size(): number {
    return this.#queue.length;
  }

  push(received: T): void {
    if (this.#closed) return;
    const reader = this.#reader;
    if (reader) {
      this.#reader = undefined;
      reader({ done: false, value: this.#flow.take(received) });
      return;
    }
    this.#queue.push(received);
    const limit = this.#flow.highWater;
    if (limit > 0 && this.#queue.length >= limit) this.#flow.pause();
  }

  /** Drops what is kept and ends the iteration (a waiting reader gets `done`). */
  close(): void {
    this.#closed = true;
    this.#queue = [];
    this.#reader?.({ done: true, value: undefined });
    this.#reader = undefined;
  }

  /** The socket's iterator; `end` is the socket's close (called when a `for await` breaks off). */
  iterator(end: () => void): AsyncIterator<Buffer[]> {
    return {
      next: () => {
        if (this.#queue.length > 0) {
          const received = this.#queue.shift() as T;
          if (this.#queue.length < this.#flow.highWater / 2) this.#flow.resume();
          return Promise.resolve({ done: false, value: this.#flow.take(received) });
        }
        if (this.#closed) return Promise.resolve({ done: true, value: undefined });
        this.#flow.resume();
        return new Promise((resolve) => {
          this.#reader = resolve;
        });
      },
      return: () => {
        end();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
