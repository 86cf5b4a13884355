/**
 * The pseudo-terminal a terminal runs on, as an interface: the real one is `@lydell/node-pty`
 * (node-pty.ts); an embedder may bring its own (a remote shell, a container exec).
 */
export interface PtySpawnOptions {
  /** The program (the shell) and its arguments. */
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  cols: number;
  rows: number;
}

export interface PtyExit {
  exitCode: number;
  signal?: number | undefined;
}

/** One running program on a pseudo-terminal, started in a session (and process group) of its own. */
export interface PtyProcess {
  /** The program's pid; also its session and process group id. */
  readonly pid: number;
  /**
   * Queues input for the program. `false` once more than a little is waiting for the program to
   * read it (as `stream.write`): stop sending until `onDrain`.
   */
  write(data: string): boolean;
  /** Called once the queued input has been written to the terminal. */
  onDrain(listener: () => void): void;
  resize(cols: number, rows: number): void;
  /** Output, decoded as UTF-8 (a character split across reads is kept whole). */
  onData(listener: (data: string) => void): void;
  /** The program exited and its output was read to the end. Called once. */
  onExit(listener: (exit: PtyExit) => void): void;
  /** Stops reading output (the program blocks once the terminal's buffer is full). */
  pause(): void;
  resume(): void;
  /** Closes the terminal's master side; the program gets SIGHUP from the kernel. */
  destroy(): void;
}

export interface PtySpawner {
  /** Shown in logs, e.g. `@lydell/node-pty`. */
  readonly name: string;
  spawn(options: PtySpawnOptions): PtyProcess;
}
