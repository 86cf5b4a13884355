import WebSocket from 'ws';

/**
 * A terminal WebSocket client (terminado's JSON messages, as JupyterLab sends them) that keeps only
 * what a benchmark needs: a count of the output and its last few kilobytes.
 */
export class TerminalClient {
  /** Output characters received. */
  received = 0;
  tail = '';
  private waiters: Array<() => void> = [];

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as [string, unknown];
      if (message[0] !== 'stdout') return;
      const text = String(message[1]);
      this.received += text.length;
      this.tail = text.length >= 4096 ? text.slice(-4096) : (this.tail + text).slice(-4096);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async connect(origin: string, token: string, name: string): Promise<TerminalClient> {
    const url = `${origin.replace(/^http/, 'ws')}/terminals/websocket/${name}`;
    const socket = new WebSocket(url, { headers: { authorization: `token ${token}` }, perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`WebSocket upgrade -> ${res.statusCode}`)));
    });
    return new TerminalClient(socket);
  }

  stdin(text: string): void {
    this.socket.send(JSON.stringify(['stdin', text]));
  }

  /** Resolves once the output tail matches `pattern` (checked on every message). */
  async until(pattern: RegExp, timeoutMs = 60_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!pattern.test(this.tail)) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no ${pattern} in the terminal output: ${JSON.stringify(this.tail.slice(-200))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}
