import type { Terminal, TerminalOutput } from '@nbserve/core';
import type { WebSocket } from 'ws';
import { parseClientFrame } from './terminal-frames.js';

export interface TerminalFanoutOptions {
  /** Bytes a client may have unsent before the terminal stops sending to it. */
  highWaterBytes: number;
  /** Below this the client is sent what it missed (from the scrollback) and followed live again. */
  lowWaterBytes: number;
  /** A client backed up this long no longer holds the shell back: it skips output and catches up later. */
  stallMs: number;
  /** Longest `stdin` message taken at once (characters); a longer one is refused with a notice. */
  maxStdinLength: number;
  /** Ping every this many ms; a client without a pong for 3 intervals (at least 30 s) is dropped. 0 = off. */
  pingIntervalMs: number;
  warn: (message: string) => void;
}

interface Client {
  ws: WebSocket;
  /** How far into the terminal's output this client has been sent. */
  offset: number;
  rows: number | undefined;
  cols: number | undefined;
  /** Over the high-water mark: sent nothing until it drains. */
  waiting: boolean;
  /** Waiting for longer than `stallMs`. */
  stalled: boolean;
  stallTimer: NodeJS.Timeout | undefined;
  /** Reading paused until the shell takes the input already queued. */
  inputPaused: boolean;
  badFrames: number;
  lastPong: number;
}

const notice = (text: string) => `\r\n\x1b[0;7m[nbserve: ${text}]\x1b[0m\r\n`;

/**
 * The WebSockets of one terminal (terminado's protocol): `["setup", {}]` and the scrollback on
 * connect, every output to every client, `["disconnect", 1]` when the shell is gone; `stdin` and
 * `set_size` from clients (the terminal takes the smallest size any client asked for).
 *
 * Flow control: output is never queued without bound. A client over `highWaterBytes` unsent is
 * skipped; while every client is in that state the shell is paused (it blocks writing, as on a
 * real terminal). A client that stays backed up for `stallMs` stops holding the shell back; when
 * it drains it is sent what the scrollback still has of what it missed, after a line saying how
 * much was skipped. Input is read from a client only as fast as the shell takes it.
 */
export class TerminalFanout {
  readonly terminal: Terminal;
  readonly #options: TerminalFanoutOptions;
  readonly #clients = new Set<Client>();
  readonly #unsubscribe: Array<() => void>;
  #pingTimer: NodeJS.Timeout | undefined;
  #disposed = false;

  constructor(terminal: Terminal, options: TerminalFanoutOptions) {
    this.terminal = terminal;
    this.#options = options;
    this.#unsubscribe = [
      terminal.onOutput((output) => this.#broadcast(output)),
      terminal.onExit(() => this.dispose(1000, 'Terminal exited', true)),
    ];
  }

  /** Takes an accepted WebSocket: setup, then the scrollback, then live output. */
  attach(ws: WebSocket): void {
    if (this.#disposed) {
      ws.close(1011, 'Terminal is gone');
      return;
    }
    const client: Client = {
      ws,
      offset: this.terminal.scrollback.end,
      rows: undefined,
      cols: undefined,
      waiting: false,
      stalled: false,
      stallTimer: undefined,
      inputPaused: false,
      badFrames: 0,
      lastPong: Date.now(),
    };
    this.#clients.add(client);
    this.#updatePause(); // a new reader lets a shell paused for slow clients go on
    this.#ensurePing();
    ws.on('message', (data, isBinary) => this.#onMessage(client, data as Buffer, isBinary));
    ws.on('pong', () => {
      client.lastPong = Date.now();
    });
    ws.on('close', () => this.#detach(client));
    ws.on('error', () => this.#detach(client));
    this.#send(client, JSON.stringify(['setup', {}]));
    const recent = this.terminal.scrollback.text();
    if (recent) this.#send(client, JSON.stringify(['stdout', recent]));
  }

  /** Closes every client; with `disconnect`, terminado's `["disconnect", 1]` goes first. */
  dispose(code = 1000, reason = '', disconnect = false): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const off of this.#unsubscribe) off();
    clearInterval(this.#pingTimer);
    for (const client of [...this.#clients]) {
      if (disconnect && client.ws.readyState === client.ws.OPEN) client.ws.send(JSON.stringify(['disconnect', 1]));
      client.ws.close(code, reason);
      this.#detach(client);
    }
    this.terminal.setPaused(false);
  }

  #broadcast(output: TerminalOutput): void {
    let frame: string | undefined;
    for (const client of this.#clients) {
      if (client.waiting) continue;
      if (client.offset < output.start) {
        this.#catchUp(client);
        continue;
      }
      frame ??= JSON.stringify(['stdout', output.text]);
      client.offset = output.end;
      this.#send(client, frame);
    }
  }

  /** Sends a client everything after its offset the scrollback still holds, saying what is lost. */
  #catchUp(client: Client): void {
    const { scrollback } = this.terminal;
    if (client.offset >= scrollback.end) return;
    let text = scrollback.since(client.offset);
    if (client.offset < scrollback.start) {
      const skipped = scrollback.start - client.offset;
      text = `${notice(`${skipped} characters of output skipped: this connection could not keep up`)}${text}`;
    }
    client.offset = scrollback.end;
    this.#send(client, JSON.stringify(['stdout', text]));
  }

  #send(client: Client, data: string): void {
    const { ws } = client;
    if (ws.readyState !== ws.OPEN) return;
    ws.send(data, () => this.#sent(client));
    if (!client.waiting && ws.bufferedAmount >= this.#options.highWaterBytes) {
      client.waiting = true;
      client.stallTimer = setTimeout(() => {
        client.stalled = true;
        this.#updatePause();
      }, this.#options.stallMs);
      client.stallTimer.unref();
      this.#updatePause();
    }
  }

  /** A write reached the socket: a waiting client that drained far enough is followed again. */
  #sent(client: Client): void {
    if (!client.waiting || !this.#clients.has(client)) return;
    if (client.ws.bufferedAmount > this.#options.lowWaterBytes) return;
    client.waiting = false;
    client.stalled = false;
    clearTimeout(client.stallTimer);
    this.#catchUp(client);
    this.#updatePause();
  }

  /** The shell is paused while every client that still counts is backed up. */
  #updatePause(): void {
    let holding = 0;
    let ready = 0;
    for (const client of this.#clients) {
      if (client.stalled) continue;
      holding++;
      if (!client.waiting) ready++;
    }
    this.terminal.setPaused(holding > 0 && ready === 0);
  }

  #onMessage(client: Client, data: Buffer, isBinary: boolean): void {
    const message = parseClientFrame(data, isBinary);
    this.terminal.touch();
    if (message.kind === 'bad') {
      if (client.badFrames++ === 0) {
        this.#options.warn(`Terminal ${this.terminal.name}: ignoring ${message.why} (and any more from this client)`);
      }
      return;
    }
    if (message.kind === 'set_size') {
      client.rows = message.rows;
      client.cols = message.cols;
      this.#resizeToSmallest();
      return;
    }
    if (message.data.length > this.#options.maxStdinLength) {
      this.#send(
        client,
        JSON.stringify([
          'stdout',
          notice(
            `input of ${message.data.length} characters refused (at most ${this.#options.maxStdinLength} at once)`,
          ),
        ]),
      );
      return;
    }
    if (!this.terminal.write(message.data) && !client.inputPaused) {
      // The shell is not reading: stop reading this client until it has.
      client.inputPaused = true;
      client.ws.pause();
      this.terminal.onDrain(() => {
        client.inputPaused = false;
        client.ws.resume();
      });
    }
  }

  /** terminado's rule: the terminal is as small as the smallest client, so every client sees all of it. */
  #resizeToSmallest(): void {
    let rows = Number.POSITIVE_INFINITY;
    let cols = Number.POSITIVE_INFINITY;
    for (const client of this.#clients) {
      if (client.rows !== undefined) rows = Math.min(rows, client.rows);
      if (client.cols !== undefined) cols = Math.min(cols, client.cols);
    }
    if (Number.isFinite(rows) && Number.isFinite(cols)) this.terminal.resize(rows, cols);
  }

  #detach(client: Client): void {
    if (!this.#clients.delete(client)) return;
    clearTimeout(client.stallTimer);
    if (this.#disposed) return;
    this.#resizeToSmallest();
    this.#updatePause();
    if (this.#clients.size === 0) {
      clearInterval(this.#pingTimer);
      this.#pingTimer = undefined;
    }
  }

  #ensurePing(): void {
    const interval = this.#options.pingIntervalMs;
    if (interval <= 0 || this.#pingTimer) return;
    const deadAfter = Math.max(3 * interval, 30_000);
    this.#pingTimer = setInterval(() => {
      const now = Date.now();
      for (const client of this.#clients) {
        if (now - client.lastPong > deadAfter) client.ws.terminate();
        else client.ws.ping();
      }
    }, interval);
    this.#pingTimer.unref();
  }
}
