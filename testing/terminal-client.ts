/** A recording client for terminal WebSockets (terminado's JSON messages), for tests. */
import { WebSocket } from 'ws';

export type TerminalMessage = [string, ...unknown[]];

export class TerminalSocket {
  readonly messages: TerminalMessage[] = [];
  /** Every `stdout` text, concatenated. */
  output = '';
  closed: { code: number; reason: string } | undefined;
  #waiters: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as TerminalMessage;
      this.messages.push(message);
      if (message[0] === 'stdout') this.output += String(message[1]);
      this.#wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.#wake();
    });
  }

  /** Opens `url`; rejects with `upgrade refused: <status>` when the server answers without upgrading. */
  static open(url: string, headers: Record<string, string> = {}): Promise<TerminalSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const socket = new TerminalSocket(ws);
      ws.once('open', () => resolve(socket));
      ws.once('unexpected-response', (_req, res) => {
        res.resume();
        reject(new Error(`upgrade refused: ${res.statusCode}`));
      });
      ws.once('error', reject);
    });
  }

  send(...message: unknown[]): void {
    this.ws.send(JSON.stringify(message));
  }

  stdin(text: string): void {
    this.send('stdin', text);
  }

  /** Output since `from` (an index into `output`) until it matches `pattern`. */
  async waitForOutput(pattern: RegExp, options: { from?: number; timeoutMs?: number } = {}): Promise<string> {
    const from = options.from ?? 0;
    await this.#until(
      () => pattern.test(this.output.slice(from)),
      options.timeoutMs,
      () => {
        return `no ${pattern} in ${JSON.stringify(this.output.slice(from).slice(-400))}`;
      },
    );
    return this.output.slice(from);
  }

  async waitFor(test: (m: TerminalMessage) => boolean, timeoutMs?: number): Promise<TerminalMessage> {
    await this.#until(
      () => this.messages.some(test),
      timeoutMs,
      () => {
        return `no such message in ${JSON.stringify(this.messages.map((m) => m[0]))}`;
      },
    );
    return this.messages.find(test) as TerminalMessage;
  }

  async waitClosed(timeoutMs = 20_000): Promise<{ code: number; reason: string }> {
    await this.#until(
      () => this.closed !== undefined,
      timeoutMs,
      () => 'the socket did not close',
      true,
    );
    return this.closed as { code: number; reason: string };
  }

  close(): void {
    this.ws.close();
  }

  async #until(done: () => boolean, timeoutMs = 30_000, why: () => string, closedOk = false): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (done()) return;
      if (this.closed && !closedOk) throw new Error(`socket closed (${this.closed.code}): ${why()}`);
      if (Date.now() > deadline) throw new Error(`timed out: ${why()}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
