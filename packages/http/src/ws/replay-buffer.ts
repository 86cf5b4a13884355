import type { protocol } from '@nbserve/core';

interface Entry {
  channel: protocol.Channel;
  raw: protocol.RawMessage;
  bytes: number;
  at: number;
}

function sizeOf(raw: protocol.RawMessage): number {
  let n = raw.header.length + raw.parentHeader.length + raw.metadata.length + raw.content.length;
  for (const b of raw.buffers) n += b.length;
  return n;
}

/**
 * Messages for a frontend while its WebSocket is away, replayed in order when it reconnects with
 * the same session_id. Bounded in bytes and age. Drop policy: the OLDEST messages go first —
 * when a new message would exceed `maxBytes`, and when a message is older than `maxAgeMs` — so a
 * reconnecting client sees the latest output and the final replies, and `dropped` says how many
 * were lost. A single message larger than `maxBytes` is not kept at all.
 */
export class ReplayBuffer {
  readonly #entries: Entry[] = [];
  #head = 0;
  #bytes = 0;
  dropped = 0;

  constructor(
    readonly maxBytes: number,
    readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.#entries.length - this.#head;
  }

  get bytes(): number {
    return this.#bytes;
  }

  push(channel: protocol.Channel, raw: protocol.RawMessage): void {
    const bytes = sizeOf(raw);
    const at = this.now();
    this.#expire(at);
    if (bytes > this.maxBytes) {
      this.dropped++;
      return;
    }
    while (this.#bytes + bytes > this.maxBytes && this.size > 0) this.#dropOldest();
    this.#entries.push({ channel, raw, bytes, at });
    this.#bytes += bytes;
  }

  /** Takes every message still within age, oldest first, and empties the buffer. */
  drain(): Array<{ channel: protocol.Channel; raw: protocol.RawMessage }> {
    this.#expire(this.now());
    const out = this.#entries.slice(this.#head).map(({ channel, raw }) => ({ channel, raw }));
    this.#entries.length = 0;
    this.#head = 0;
    this.#bytes = 0;
    return out;
  }

  #expire(now: number): void {
    while (this.size > 0 && now - (this.#entries[this.#head] as Entry).at > this.maxAgeMs) this.#dropOldest();
  }

  #dropOldest(): void {
    const entry = this.#entries[this.#head] as Entry;
    this.#entries[this.#head] = undefined as unknown as Entry;
    this.#head++;
    this.#bytes -= entry.bytes;
    this.dropped++;
    // Compact now and then so the array does not grow with the consumed prefix.
    if (this.#head > 1024 && this.#head * 2 > this.#entries.length) {
      this.#entries.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
