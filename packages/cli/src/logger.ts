import type { Logger } from '@nbserve/http';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value);
}

/**
 * Keeps a closed terminal or pipe from taking the server down: without a listener, a write to a
 * stdout/stderr whose reader is gone raises EPIPE as an uncaught exception, whose report is another
 * write that fails again. The server goes on serving; its output is dropped.
 */
export function ignoreBrokenOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

/** Timestamped lines on stderr; the server redacts secrets before they get here. */
export function stderrLogger(level: LogLevel): Logger {
  const rank = LEVELS.indexOf(level);
  const write = (tag: string, message: string) => {
    const time = new Date().toISOString().slice(11, 23);
    process.stderr.write(`[${tag} ${time} nbserve] ${message}\n`);
  };
  return {
    info: (message) => {
      if (rank <= 1) write('I', message);
    },
    warn: (message) => {
      if (rank <= 2) write('W', message);
    },
    error: (message) => write('E', message),
  };
}
