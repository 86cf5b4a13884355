import { protocol } from '@nbserve/core';

export interface RateLimitOptions {
  /** Max iopub messages per second; 0 = unlimited. */
  msgRate: number;
  /** Max iopub `stream` bytes per second; 0 = unlimited. */
  dataRate: number;
  /** Averaging window in seconds. */
  windowSeconds: number;
}

const EXEMPT = new Set(['status', 'comm_open', 'execute_input']);

/**
 * jupyter_server's IOPub rate limit for one WebSocket: over a sliding window, too many messages
 * (or stream bytes) switch the connection to dropping iopub output, with one stderr notice, until
 * the rate falls below 80% of the limit; an `idle` status resets everything.
 */
export class IopubRateLimiter {
  readonly #options: RateLimitOptions;
  readonly #window: Array<{ until: number; bytes: number }> = [];
  #windowBytes = 0;
  #msgExceeded = false;
  #dataExceeded = false;
  dropped = 0;

  constructor(
    options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.#options = options;
  }

  get enabled(): boolean {
    return this.#options.msgRate > 0 || this.#options.dataRate > 0;
  }

  /**
   * Decides for one outgoing iopub message: `send`, `drop`, or `notice` (drop it and send the
   * returned stderr notice instead).
   */
  check(
    raw: protocol.RawMessage,
    msgType: string,
    session: string,
  ): { action: 'send' | 'drop' } | { action: 'notice'; notice: protocol.RawMessage } {
    if (msgType === 'status') {
      try {
        if ((protocol.parsePart(raw.content) as { execution_state?: string }).execution_state === 'idle') this.#reset();
      } catch {
        // not our concern here
      }
      return { action: 'send' };
    }
    if (EXEMPT.has(msgType)) return { action: 'send' };
    const now = this.now();
    const windowMs = this.#options.windowSeconds * 1000;
    while (this.#window.length > 0 && (this.#window[0] as { until: number }).until <= now) {
      this.#windowBytes -= (this.#window.shift() as { bytes: number }).bytes;
    }
    const bytes = msgType === 'stream' ? raw.content.length : 0;
    const msgRate = (this.#window.length + 1) / this.#options.windowSeconds;
    const dataRate = (this.#windowBytes + bytes) / this.#options.windowSeconds;
    const { msgRate: msgLimit, dataRate: dataLimit } = this.#options;
    let notice: string | undefined;
    if (msgLimit > 0) {
      if (!this.#msgExceeded && msgRate > msgLimit) {
        this.#msgExceeded = true;
        notice = `IOPub message rate exceeded.\nThe server will temporarily stop sending output to the client in order to avoid crashing it.\nTo change this limit, set the config variable\n\`--iopub-msg-rate-limit\`.\n\nCurrent values:\niopub_msg_rate_limit=${msgLimit} (msgs/sec)\nrate_limit_window=${this.#options.windowSeconds} (secs)\n`;
      } else if (this.#msgExceeded && msgRate < 0.8 * msgLimit) {
        this.#msgExceeded = false;
      }
    }
    if (dataLimit > 0 && !notice) {
      if (!this.#dataExceeded && dataRate > dataLimit) {
        this.#dataExceeded = true;
        notice = `IOPub data rate exceeded.\nThe server will temporarily stop sending output to the client in order to avoid crashing it.\nTo change this limit, set the config variable\n\`--iopub-data-rate-limit\`.\n\nCurrent values:\niopub_data_rate_limit=${dataLimit} (bytes/sec)\nrate_limit_window=${this.#options.windowSeconds} (secs)\n`;
      } else if (this.#dataExceeded && dataRate < 0.8 * dataLimit) {
        this.#dataExceeded = false;
      }
    }
    if (notice) {
      let parent: protocol.MessageHeader | undefined;
      try {
        parent = protocol.parsePart(raw.parentHeader) as protocol.MessageHeader;
      } catch {
        parent = undefined;
      }
      this.dropped++;
      const msg = protocol.createMessage('stream', { name: 'stderr', text: notice }, { session, parent });
      return { action: 'notice', notice: protocol.toRaw(msg) };
    }
    if (this.#msgExceeded || this.#dataExceeded) {
      // Dropped messages are not counted in the window, as upstream.
      this.dropped++;
      return { action: 'drop' };
    }
    this.#window.push({ until: now + windowMs, bytes });
    this.#windowBytes += bytes;
    return { action: 'send' };
  }

  #reset(): void {
    this.#window.length = 0;
    this.#windowBytes = 0;
    this.#msgExceeded = false;
    this.#dataExceeded = false;
  }
}
