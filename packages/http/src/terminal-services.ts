import { loadNodePty, NODE_PTY_MODULE, type PtySpawner, TerminalManager } from '@nbserve/core';
import type { Activity } from './activity.js';
import type { NbserveOptions } from './options.js';
import { TerminalHub } from './ws/terminal-hub.js';

/** The terminals of one server: the manager (REST) and the WebSocket fan-outs. */
export interface TerminalServices {
  readonly manager: TerminalManager;
  readonly sockets: TerminalHub;
}

/**
 * Builds the terminal services, or `null` when terminals are off: by `terminals: false`, or
 * because the pseudo-terminal module cannot load here (said once on the log; the rest of the
 * server works as before).
 */
export function createTerminalServices(options: NbserveOptions, activity: Activity): TerminalServices | null {
  if (!options.terminals) return null;
  let pty: PtySpawner;
  try {
    pty = (options.loadPty ?? loadNodePty)();
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 300);
    options.logger.warn(
      `Terminals are off: the pseudo-terminal module ${NODE_PTY_MODULE} could not be loaded (${reason})`,
    );
    return null;
  }
  const warn = (message: string) => options.logger.warn(message);
  const manager = new TerminalManager({
    pty,
    rootDir: options.root,
    ...(options.terminalShell === undefined ? {} : { shell: shellCommand(options.terminalShell) }),
    cullInactiveTimeout: options.terminalsCullInactiveTimeout,
    cullInterval: options.terminalsCullInterval,
    warn,
    onActivity: () => activity.touch(),
  });
  const sockets = new TerminalHub(manager, {
    highWaterBytes: 1024 * 1024,
    lowWaterBytes: 256 * 1024,
    stallMs: 5000,
    maxStdinLength: 1024 * 1024,
    pingIntervalMs: options.wsPingInterval * 1000,
    warn,
  });
  return { manager, sockets };
}

/** `--terminal-shell "bash --norc"` is a command line: split at whitespace. */
function shellCommand(shell: string | readonly string[]): string[] {
  return typeof shell === 'string' ? shell.trim().split(/\s+/).filter(Boolean) : [...shell];
}
