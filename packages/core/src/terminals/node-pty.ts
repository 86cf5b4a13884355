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
  write(data: string): void;
  resize(cols: number, rows: number): void;
  onData(listener: (data: string) => void): unknown;
  onExit(listener: (exit: { exitCode: number; signal?: number }) => void): unknown;
  pause(): void;
  resume(): void;
  destroy(): void;
}

/** node-pty's master side is a `tty.ReadStream` (a net.Socket); its write buffer is the input queue. */
interface MasterSocket {
  write(data: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
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
  const socket = (term as unknown as { _socket?: MasterSocket })._socket;
  let exited: PtyExit | undefined;
  const exitListeners: Array<(exit: PtyExit) => void> = [];
  term.onExit((exit) => {
    exited = { exitCode: exit.exitCode, signal: exit.signal || undefined };
    for (const listener of exitListeners.splice(0)) listener(exited);
  });
  return {
    pid: term.pid,
    write(data) {
      if (exited) return true;
      // node-pty's own write() drops the socket's verdict; the socket is where the queue is
      if (socket) return socket.write(data);
      term.write(data);
      return true;
    },
    onDrain(listener) {
      if (socket && !exited) socket.once('drain', listener);
      else queueMicrotask(listener);
    },
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
      try {
        term.destroy();
      } catch {
        // already closed
      }
    },
  };
}
