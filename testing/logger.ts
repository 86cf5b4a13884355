import type { Logger } from '@nbserve/http';

/** A silent logger that keeps every line (`info …`, `warn …`, `error …`) for assertions. */
export interface RecordingLogger extends Logger {
  lines: string[];
}

export function recordingLogger(): RecordingLogger {
  const lines: string[] = [];
  return {
    lines,
    info: (line) => lines.push(`info ${line}`),
    warn: (line) => lines.push(`warn ${line}`),
    error: (line) => lines.push(`error ${line}`),
  };
}
