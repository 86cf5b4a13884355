import type { LogFields, Logger } from '@nbserve/http';

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];

const FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof FORMATS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (LEVELS as readonly string[]).includes(value);
}

export function isLogFormat(value: string): value is LogFormat {
  return (FORMATS as readonly string[]).includes(value);
}

/**
 * Keeps a closed terminal or pipe from taking the server down: without a listener, a write to a
 * stdout/stderr whose reader is gone raises EPIPE as an uncaught exception, whose report is another
 * write that fails again. The server goes on serving; its output is dropped.
 */
export function ignoreBrokenOutput(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

type Severity = 'info' | 'warn' | 'error';

/**
 * Replaces every occurrence of the secrets (the token) in a text. The server redacts secrets before
 * they reach the logger; this is the second lock, for text that reached it some other way (a
 * kernel's output, an error message quoting a URL).
 */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  const long = secrets.filter((secret) => secret.length >= 8);
  if (long.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of long) if (out.includes(secret)) out = out.split(secret).join('[secret]');
    return out;
  };
}

/** One JSON object, one line: time, level, message, then the fields (which cannot override those three). */
export function jsonLine(level: Severity, message: string, fields: LogFields = {}, scrub = (t: string) => t): string {
  const entry: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) entry[key] = typeof value === 'string' ? scrub(value) : value;
  }
  return `${JSON.stringify({ time: new Date().toISOString(), level, message: scrub(message), ...entry })}\n`;
}

export interface CliLoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /** Never written out, whatever the message (the token). */
  secrets?: readonly string[];
}

/**
 * The server's log on stderr: `[I 12:00:00.000 nbserve] message` lines (`text`), or one JSON
 * object a line with time, level, message and the line's fields (`json`, for log collectors).
 */
export function cliLogger(options: CliLoggerOptions): Logger {
  const rank = LEVELS.indexOf(options.level);
  const scrub = secretScrubber(options.secrets ?? []);
  const write = (severity: Severity, message: string, fields?: LogFields) => {
    if (options.format === 'json') {
      process.stderr.write(jsonLine(severity, message, fields, scrub));
      return;
    }
    const tag = { info: 'I', warn: 'W', error: 'E' }[severity];
    const time = new Date().toISOString().slice(11, 23);
    process.stderr.write(`[${tag} ${time} nbserve] ${scrub(message)}\n`);
  };
  return {
    info: (message, fields) => {
      if (rank <= 1) write('info', message, fields);
    },
    warn: (message, fields) => {
      if (rank <= 2) write('warn', message, fields);
    },
    error: (message, fields) => write('error', message, fields),
  };
}
