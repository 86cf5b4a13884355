/**
 * Applies terminal carriage-return and backspace semantics to stream text, so a `\r` progress
 * bar shows only its latest state, as a terminal (and Jupyter) would. ANSI escapes pass through.
 */
export function applyCarriageReturns(text: string): string {
  if (!text.includes('\r') && !text.includes('\b')) return text;
  const out: string[] = [];
  for (const rawLine of text.split('\n')) {
    let line = '';
    let cursor = 0;
    // A trailing \r\n is a Windows line end, not a rewrite of the line.
    const segments = rawLine.replace(/\r$/, '').split(/(\r|\b)/);
    for (const seg of segments) {
      if (seg === '\r') {
        cursor = 0;
      } else if (seg === '\b') {
        cursor = Math.max(0, cursor - 1);
      } else if (seg.length > 0) {
        line = line.slice(0, cursor) + seg + line.slice(cursor + seg.length);
        cursor += seg.length;
      }
    }
    out.push(line);
  }
  return out.join('\n');
}

/** Appends new stream text to what a stream output already holds, then normalises `\r`. */
export function appendStreamText(previous: string, next: string): string {
  // Keep a trailing \r pending: the next chunk overwrites that line.
  const joined = previous + next;
  const pending = joined.endsWith('\r');
  const applied = applyCarriageReturns(pending ? joined.slice(0, -1) : joined);
  if (!pending) return applied;
  return `${applied}\r`;
}
