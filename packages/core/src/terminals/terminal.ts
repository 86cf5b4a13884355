import { isGroupAlive, isProcessAlive, sessionMembers, signalSession } from '../kernels/process-group.js';
import { isoDate } from '../protocol/header.js';
import type { PtyExit, PtyProcess } from './pty.js';
import { Scrollback } from './scrollback.js';

/** A terminal as the REST API shows it (jupyter_server's model). */
export interface TerminalModel {
  name: string;
  last_activity: string;
}

/** A piece of output and where it sits in everything the terminal printed (see `Scrollback`). */
export interface TerminalOutput {
  text: string;
  start: number;
  end: number;
}

export interface TerminalOptions {
  name: string;
  cwd: string;
  pty: PtyProcess;
  rows: number;
  cols: number;
  /** How much recent output is kept for clients that connect later or fall behind (UTF-16 code units). */
  scrollbackLength: number;
  now: () => Date;
  /** Called on every input and output. */
  onActivity?: () => void;
}

/** A read this long means the terminal had more to give: a flood. */
const BULK_READ = 2048;
/** Output of a flood is gathered for this long… */
const BATCH_MS = 4;
/** …or until this much is waiting. */
const BATCH_LENGTH = 256 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One shell on a pseudo-terminal: its output (coalesced per event-loop turn and kept in a bounded
 * scrollback), its input, size and activity, and its end. The shell leads a session and process
 * group of its own, so `kill()` reaches everything it started there, jobs included.
 */
export class Terminal {
  readonly name: string;
  readonly cwd: string;
  readonly pid: number;
  readonly #pty: PtyProcess;
  readonly #scrollback: Scrollback;
  readonly #now: () => Date;
  readonly #onActivity: () => void;
  readonly #outputListeners = new Set<(output: TerminalOutput) => void>();
  readonly #exitListeners = new Set<(exit: PtyExit) => void>();
  #lastActivity: Date;
  #rows: number;
  #cols: number;
  #pending: string[] = [];
  #pendingLength = 0;
  #flushScheduled = false;
  #exit: PtyExit | undefined;
  #paused = false;
  #killing: Promise<void> | undefined;

  constructor(options: TerminalOptions) {
    this.name = options.name;
    this.cwd = options.cwd;
    this.#pty = options.pty;
    this.pid = options.pty.pid;
    this.#rows = options.rows;
    this.#cols = options.cols;
    this.#scrollback = new Scrollback(options.scrollbackLength);
    this.#now = options.now;
    this.#onActivity = options.onActivity ?? (() => {});
    this.#lastActivity = options.now();
    this.#pty.onData((data) => this.#onData(data));
    this.#pty.onExit((exit) => {
      this.#flush();
      this.#exit = exit;
      for (const listener of [...this.#exitListeners]) listener(exit);
      this.#exitListeners.clear();
    });
  }

  get exited(): boolean {
    return this.#exit !== undefined;
  }

  get lastActivity(): Date {
    return this.#lastActivity;
  }

  get rows(): number {
    return this.#rows;
  }

  get cols(): number {
    return this.#cols;
  }

  /** The recent output; read-only for callers. */
  get scrollback(): Pick<Scrollback, 'start' | 'end' | 'since' | 'text'> {
    return this.#scrollback;
  }

  model(): TerminalModel {
    return { name: this.name, last_activity: isoDate(this.#lastActivity) };
  }

  /** Records activity (input, output, a client's message). */
  touch(): void {
    this.#lastActivity = this.#now();
    this.#onActivity();
  }

  /** Output as it arrives, in order; returns the unsubscribe function. */
  onOutput(listener: (output: TerminalOutput) => void): () => void {
    this.#outputListeners.add(listener);
    return () => this.#outputListeners.delete(listener);
  }

  /** The shell exited (its output was delivered before). */
  onExit(listener: (exit: PtyExit) => void): () => void {
    const exit = this.#exit;
    if (exit) {
      queueMicrotask(() => listener(exit));
      return () => {};
    }
    this.#exitListeners.add(listener);
    return () => this.#exitListeners.delete(listener);
  }

  /** Input for the shell; `false` when it is not reading fast enough (wait for `onDrain`). */
  write(data: string): boolean {
    this.touch();
    return this.#pty.write(data);
  }

  onDrain(listener: () => void): void {
    this.#pty.onDrain(listener);
  }

  resize(rows: number, cols: number): void {
    if (this.exited || (rows === this.#rows && cols === this.#cols)) return;
    this.#rows = rows;
    this.#cols = cols;
    this.#pty.resize(cols, rows);
  }

  /** Stops reading output while no client can take more (the shell then blocks on its writes). */
  setPaused(paused: boolean): void {
    if (paused === this.#paused || this.exited) return;
    this.#paused = paused;
    if (paused) this.#pty.pause();
    else this.#pty.resume();
  }

  /**
   * Ends the shell and everything in its session: SIGHUP (a terminal closing, which shells and
   * editors handle by saving and exiting) and SIGCONT to stopped jobs, then SIGKILL to whatever is
   * left after `graceMs`. Settles once the shell exited and no process of the session is left.
   */
  kill(graceMs = 1000): Promise<void> {
    this.#killing ??= (async () => {
      this.setPaused(false); // a paused reader would keep the shell blocked in a write
      signalSession(this.pid, 'SIGHUP');
      signalSession(this.pid, 'SIGCONT');
      if (!(await this.#waitGone(graceMs))) {
        signalSession(this.pid, 'SIGKILL');
        await this.#waitGone(5000);
      }
      this.#pty.destroy();
      if (!this.exited) {
        await Promise.race([new Promise<void>((resolve) => this.onExit(() => resolve())), sleep(2000)]);
      }
    })();
    return this.#killing;
  }

  async #waitGone(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      const gone = !isProcessAlive(this.pid) && !isGroupAlive(this.pid) && sessionMembers(this.pid).length === 0;
      if (gone) return true;
      if (Date.now() >= deadline) return false;
      await sleep(20);
    }
  }

  #onData(data: string): void {
    this.#pending.push(data);
    this.#pendingLength += data.length;
    if (this.#pendingLength >= BATCH_LENGTH) {
      this.#flush();
      return;
    }
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    // A terminal hands out at most 4 KiB per read. Small reads (an echo, a prompt) leave at once;
    // full ones mean a flood, whose reads are gathered for a few milliseconds into one message,
    // which saves each client most of the per-message work.
    if (data.length < BULK_READ) setImmediate(() => this.#flush());
    else setTimeout(() => this.#flush(), BATCH_MS);
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#pending.length === 0) return;
    const text = this.#pending.length === 1 ? (this.#pending[0] as string) : this.#pending.join('');
    this.#pending = [];
    this.#pendingLength = 0;
    this.#scrollback.append(text);
    const end = this.#scrollback.end;
    this.touch();
    const output = { text, start: end - text.length, end };
    for (const listener of this.#outputListeners) listener(output);
  }
}
