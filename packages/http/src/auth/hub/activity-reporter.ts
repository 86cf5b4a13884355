import type { Logger } from '../../options.js';
import type { HubClient } from './client.js';

/** Where the last activity is read from (the server's `Activity`). */
export interface ActivitySource {
  readonly lastActivity: Date;
}

/**
 * Tells the hub when this server was last used, so its idle culler stops only idle servers: once
 * at start, then every interval (with a little jitter, so servers spawned together do not report
 * together) whenever there was activity since the last report. A failed report is logged and
 * retried at the next tick.
 */
export class HubActivityReporter {
  readonly #client: HubClient;
  readonly #intervalMs: number;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | null = null;
  #lastSent: number | null = null;
  #stopped = false;

  constructor(client: HubClient, intervalSeconds: number, logger: Logger) {
    this.#client = client;
    this.#intervalMs = intervalSeconds * 1000;
    this.#logger = logger;
  }

  /** Starts reporting `source`'s activity; `enabled: false` when the hub gave no activity URL. */
  start(source: ActivitySource, enabled: boolean): void {
    if (!enabled || this.#intervalMs === 0) {
      this.#logger.warn('Activity reports to JupyterHub are off: its idle culler cannot see this server');
      return;
    }
    const tick = async () => {
      await this.report(source);
      if (this.#stopped) return;
      const jitter = 1 + 0.2 * (Math.random() - 0.5);
      this.#timer = setTimeout(tick, this.#intervalMs * jitter);
      this.#timer.unref();
    };
    void tick();
  }

  /** Sends the last activity if it is newer than what the hub has; false when the hub could not be told. */
  async report(source: ActivitySource): Promise<boolean> {
    const last = source.lastActivity;
    if (this.#lastSent !== null && last.getTime() <= this.#lastSent) return true;
    try {
      await this.#client.postActivity(last);
      this.#lastSent = last.getTime();
      return true;
    } catch (error) {
      this.#logger.warn(`Could not report activity to JupyterHub: ${error instanceof Error ? error.message : 'error'}`);
      return false;
    }
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
