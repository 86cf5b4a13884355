/** A recording WebSocket client (`ws`) for kernel socket tests: every frame kept, with a way to wait for one. */
import { WebSocket } from 'ws';
import { within } from './wait.js';

export type Frame = {
  header: Record<string, unknown> & { msg_type: string; msg_id: string };
  parent_header: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  content: Record<string, unknown>;
  channel?: string;
};

/** An open socket that records every frame, with a way to wait for one. */
export class Recorder {
  readonly frames: Frame[] = [];
  closed: { code: number; reason: string } | undefined;
  private waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.waiters.splice(0)) w();
    });
  }

  async waitFor(test: (f: Frame) => boolean, timeoutMs = 30_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.frames.find(test);
      if (hit) return hit;
      if (this.closed) throw new Error(`socket closed (${this.closed.code} ${this.closed.reason})`);
      if (Date.now() > deadline)
        throw new Error(`timed out; saw ${this.frames.map((f) => f.header.msg_type).join(',')}`);
      const next = new Promise<void>((resolve) => this.waiters.push(resolve));
      await within(next, Math.max(1, deadline - Date.now()), 'a frame').catch(() => {});
    }
  }

  async waitClosed(timeoutMs = 15_000): Promise<{ code: number; reason: string }> {
    const next = new Promise<void>((resolve) => this.waiters.push(resolve));
    if (!this.closed) await within(next, timeoutMs, 'close').catch(() => {});
    if (!this.closed) throw new Error('socket did not close');
    return this.closed;
  }
}

export function open(url: string, headers: Record<string, string>): Promise<Recorder> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const recorder = new Recorder(ws);
    ws.once('open', () => resolve(recorder));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}
