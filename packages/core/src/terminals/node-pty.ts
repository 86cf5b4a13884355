import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { PtyExit, PtyProcess, PtySpawner, PtySpawnOptions } from './pty.js';

/** The part of `@lydell/node-pty`'s API used here (its own typings are not needed at run time). */
interface NodePtyModule {
  spawn(
    file: string,
    args: string[],
    options: { name: string; cols: number; rows: number; cwd: string; env: Record<string, string> },
  ): NodePtyTerminal;
}

interface NodePtyTerminal {
  readonly pid: number;
  /** The master side's descriptor (non-blocking). */
  readonly fd: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  onData(listener: (data: string) => void): unknown;
  onExit(listener: (exit: { exitCode: number; signal?: number }) => void): unknown;
  pause(): void;
  resume(): void;
  destroy(): void;
}

export const NODE_PTY_MODULE = '@lydell/node-pty';

/**
 * Loads node-pty (prebuilt binaries inside the package, nothing compiled at install) and wraps it
 * as a `PtySpawner`. Throws when the native module cannot load on this platform or Node version;
 * the caller turns terminals off then. Synchronous and lazy: the server pays the ~15 ms load only
 * when terminals are first used.
 */
export function loadNodePty(specifier: string = NODE_PTY_MODULE): PtySpawner {
  const require = createRequire(import.meta.url);
  const pty = require(specifier) as NodePtyModule;
  if (typeof pty?.spawn !== 'function') throw new Error(`${specifier} has no spawn()`);
  return {
    name: specifier,
    spawn: (options) => wrap(pty, options),
  };
}

function wrap(pty: NodePtyModule, options: PtySpawnOptions): PtyProcess {
  const term = pty.spawn(options.file, [...options.args], {
    // node-pty sets TERM from `name`; the env's TERM is the one we chose anyway
    name: options.env.TERM ?? 'xterm-256color',
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd,
    env: { ...options.env },
  });
  let exited: PtyExit | undefined;
  const exitListeners: Array<(exit: PtyExit) => void> = [];
  const input = new InputQueue(term.fd);
  term.onExit((exit) => {
    exited = { exitCode: exit.exitCode, signal: exit.signal || undefined };
    input.close();
    for (const listener of exitListeners.splice(0)) listener(exited);
  });
  return {
    pid: term.pid,
    write: (data) => (exited ? true : input.write(data)),
    onDrain: (listener) => input.onDrain(listener),
    resize(cols, rows) {
      if (!exited) term.resize(cols, rows);
    },
    onData(listener) {
      term.onData(listener);
    },
    onExit(listener) {
      if (exited) {
        const done = exited;
        queueMicrotask(() => listener(done));
      } else exitListeners.push(listener);
    },
    pause: () => term.pause(),
    resume: () => term.resume(),
    destroy() {
      input.close();
      try {
        term.destroy();
      } catch {
        // already closed
      }
    },
  };
}

/** Input queued beyond this makes `write` answer false. */
const INPUT_HIGH_WATER = 64 * 1024;

/**
 * The input side of the master, written from a queue with `write(2)` on the non-blocking
 * descriptor. node-pty writes through libuv, which treats a pty master as a blocking stream: once
 * the program stops reading (a full input buffer in raw mode) that write spins inside the event
 * loop and the whole server stops. Here a full terminal answers EAGAIN at once and the queue
 * tries again on a timer; a keystroke to a reading program is one synchronous, immediate write.
 */
class InputQueue {
  readonly #fd: number;
  #chunks: Buffer[] = [];
  #queued = 0;
  #retryMs = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #drainListeners: Array<() => void> = [];

  constructor(fd: number) {
    this.#fd = fd;
  }

  write(data: string): boolean {
    if (this.#closed) return true;
    const chunk = Buffer.from(data, 'utf8');
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#queued += chunk.length;
      if (!this.#retryTimer) this.#flush();
    }
    return this.#queued < INPUT_HIGH_WATER;
  }

  onDrain(listener: () => void): void {
    if (this.#closed || this.#queued < INPUT_HIGH_WATER) queueMicrotask(listener);
    else this.#drainListeners.push(listener);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#chunks = [];
    this.#queued = 0;
    this.#drained();
  }

  #flush(): void {
    this.#retryTimer = undefined;
    while (!this.#closed && this.#chunks.length > 0) {
      const chunk = this.#chunks[0] as Buffer;
      let written: number;
      try {
        written = writeSync(this.#fd, chunk);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') {
          this.close(); // the terminal is gone (EIO, EBADF)
          return;
        }
        written = 0;
      }
      if (written === 0) {
        // the program is not reading: look again soon, less often the longer it takes
        this.#retryMs = Math.min(Math.max(this.#retryMs * 2, 2), 50);
        this.#retryTimer = setTimeout(() => this.#flush(), this.#retryMs);
        this.#retryTimer.unref();
        break;
      }
      this.#retryMs = 0;
      this.#queued -= written;
      if (written >= chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(written);
    }
    if (this.#queued < INPUT_HIGH_WATER) this.#drained();
  }

  #drained(): void {
    for (const listener of this.#drainListeners.splice(0)) listener();
  }
}
