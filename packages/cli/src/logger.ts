import type { Logger } from '@nbserve/http';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value);
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
