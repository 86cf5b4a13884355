import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, internalError, notFound, unavailable } from '../errors.js';
import type { PtySpawner } from './pty.js';
import { Terminal, type TerminalModel } from './terminal.js';

export interface TerminalManagerOptions {
  pty: PtySpawner;
  /** Contents root: the default working directory, and the bound for a client-given one. */
  rootDir: string;
  /** The shell command; default (also for `[]`) `$SHELL` (else `/bin/sh`) with `-l`, a login shell, as jupyter_server runs it. */
  shell?: readonly string[];
  /** Environment the shell starts from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Recent output kept per terminal for reconnecting clients (UTF-16 code units). Default 512 Ki. */
  scrollbackLength?: number;
  /** Terminate terminals without input or output for this many seconds; 0 = never (default). */
  cullInactiveTimeout?: number;
  /** Seconds between culling passes. Default 300. */
  cullInterval?: number;
  /** How long a shell gets to exit after SIGHUP before SIGKILL. Default 1000 ms. */
  killGraceMs?: number;
  now?: () => Date;
  warn?: (message: string) => void;
  /** Called on any terminal's input or output (server activity). */
  onActivity?: () => void;
}

export interface CreateTerminalOptions {
  /** A name of letters, digits and `_`; default the lowest free number (`1`, `2`, …). */
  name?: string | undefined;
  /** Working directory: relative to the root, or absolute; it must lie inside the root. */
  cwd?: string | undefined;
}

/** What a name may be: jupyter_server routes `/api/terminals/(\w+)`, Python's Unicode `\w`. */
export const TERMINAL_NAME = /^[\p{L}\p{M}\p{N}_]{1,255}$/u;

/** Environment variables of the server's own terminal that would confuse the new one. */
const INHERITED_TERMINAL_VARS = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES'];

/**
 * Named shells on pseudo-terminals, as jupyter_server's terminal manager (terminado's
 * `NamedTermManager`): create, list, get, terminate, cull the inactive; a shell that exits by
 * itself is removed.
 */
export class TerminalManager {
  readonly #options: TerminalManagerOptions;
  readonly #terminals = new Map<string, Terminal>();
  readonly #removedListeners = new Set<(name: string) => void>();
  readonly #now: () => Date;
  readonly #warn: (message: string) => void;
  #cullTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: TerminalManagerOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#warn = options.warn ?? ((m) => console.warn(`[nbserve] ${m}`));
    const timeout = options.cullInactiveTimeout ?? 0;
    if (timeout > 0) {
      const interval = options.cullInterval && options.cullInterval > 0 ? options.cullInterval : 300;
      this.#cullTimer = setInterval(() => void this.cullInactive(), interval * 1000);
      this.#cullTimer.unref();
    }
  }

  list(): TerminalModel[] {
    return [...this.#terminals.values()].map((t) => t.model());
  }

  /** Throws not-found `Terminal not found: <name>`, jupyter_server's message. */
  get(name: string): Terminal {
    const terminal = this.#terminals.get(name);
    if (!terminal) throw notFound(`Terminal not found: ${name}`);
    return terminal;
  }

  has(name: string): boolean {
    return this.#terminals.has(name);
  }

  /** Called with the name of every terminal that goes away (terminated, culled, or its shell exited). */
  onRemoved(listener: (name: string) => void): () => void {
    this.#removedListeners.add(listener);
    return () => this.#removedListeners.delete(listener);
  }

  /**
   * Starts a shell. A name already in use returns that terminal unchanged (terminado would start a
   * second shell under the same name and lose track of the first).
   */
  async create(options: CreateTerminalOptions = {}): Promise<Terminal> {
    if (this.#closed) throw unavailable('The server is shutting down');
    if (options.name !== undefined && !TERMINAL_NAME.test(options.name)) {
      throw badRequest('A terminal name is letters, digits and _ only', 'bad name');
    }
    const cwd = await this.#resolveCwd(options.cwd);
    const existing = options.name === undefined ? undefined : this.#terminals.get(options.name);
    if (existing) return existing;
    const name = options.name ?? this.#nextName();
    const [file, ...args] = this.#shell();
    const rows = 24;
    const cols = 80;
    let pty: ReturnType<PtySpawner['spawn']>;
    try {
      pty = this.#options.pty.spawn({ file: file as string, args, cwd, env: this.#env(cwd), rows, cols });
    } catch (error) {
      throw internalError(`Could not start the terminal's shell ${file}`, { cause: error });
    }
    const terminal = new Terminal({
      name,
      cwd,
      pty,
      rows,
      cols,
      scrollbackLength: this.#options.scrollbackLength ?? 512 * 1024,
      now: this.#now,
      ...(this.#options.onActivity ? { onActivity: this.#options.onActivity } : {}),
    });
    this.#terminals.set(name, terminal);
    terminal.onExit(() => this.#remove(terminal));
    return terminal;
  }

  /** Ends the shell and its session (DELETE); throws not-found for an unknown name. */
  async terminate(name: string): Promise<void> {
    const terminal = this.get(name);
    await terminal.kill(this.#options.killGraceMs);
    this.#remove(terminal);
  }

  /** Ends every terminal; later `create` calls fail. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#cullTimer) clearInterval(this.#cullTimer);
    this.#cullTimer = undefined;
    await Promise.all(
      [...this.#terminals.values()].map(async (t) => {
        await t.kill(this.#options.killGraceMs);
        this.#remove(t);
      }),
    );
  }

  /** One culling pass (also run by the timer). Returns the names terminated. */
  async cullInactive(): Promise<string[]> {
    const timeout = this.#options.cullInactiveTimeout ?? 0;
    if (timeout <= 0) return [];
    const now = this.#now().getTime();
    const victims = [...this.#terminals.values()].filter((t) => now - t.lastActivity.getTime() > timeout * 1000);
    await Promise.all(
      victims.map(async (t) => {
        const idle = Math.floor((now - t.lastActivity.getTime()) / 1000);
        this.#warn(`Culling terminal '${t.name}' due to ${idle} seconds of inactivity.`);
        await t.kill(this.#options.killGraceMs);
        this.#remove(t);
      }),
    );
    return victims.map((t) => t.name);
  }

  #remove(terminal: Terminal): void {
    if (this.#terminals.get(terminal.name) !== terminal) return;
    this.#terminals.delete(terminal.name);
    for (const listener of this.#removedListeners) listener(terminal.name);
  }

  #nextName(): string {
    for (let n = 1; ; n++) if (!this.#terminals.has(String(n))) return String(n);
  }

  #shell(): string[] {
    if (this.#options.shell && this.#options.shell.length > 0) return [...this.#options.shell];
    const env = this.#options.env ?? process.env;
    return [env.SHELL || '/bin/sh', '-l'];
  }

  #env(cwd: string): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.#options.env ?? process.env)) {
      if (value !== undefined) env[key] = value;
    }
    for (const key of INHERITED_TERMINAL_VARS) delete env[key];
    // What xterm.js is; terminado sets the same.
    env.TERM = 'xterm-256color';
    // Without any locale a shell assumes ASCII and editors mangle UTF-8; the browser side is UTF-8.
    if (!env.LANG && !env.LC_ALL && !env.LC_CTYPE) env.LANG = 'C.UTF-8';
    env.JUPYTER_SERVER_ROOT = path.resolve(this.#options.rootDir);
    env.PWD = cwd;
    return env;
  }

  /**
   * The working directory: the root, or the directory a client named, which must be inside the
   * root after symlinks are resolved (jupyter_server accepts any existing directory). A name
   * that does not exist falls back to the root, as in jupyter_server.
   */
  async #resolveCwd(cwd: string | undefined): Promise<string> {
    const root = await realpath(this.#options.rootDir);
    if (cwd === undefined || cwd === '' || cwd === '.' || cwd === '/') return root;
    if (cwd.includes('\0')) throw badRequest('Invalid terminal directory', 'bad path');
    const candidate = path.isAbsolute(cwd) ? path.resolve(cwd) : path.resolve(root, cwd);
    const outside = badRequest('The terminal directory must be inside the server root', 'bad path');
    let real: string;
    try {
      real = await realpath(candidate);
    } catch {
      if (!isInside(root, candidate)) throw outside;
      return root;
    }
    if (!isInside(root, real)) throw outside;
    if (!(await stat(real)).isDirectory()) throw badRequest('The terminal directory is not a directory', 'bad path');
    return real;
  }
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
