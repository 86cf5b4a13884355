// ESC [ params final (CSI, colours included), OSC sequences (ESC ] ... BEL/ST) and lone two-byte escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ESCAPES = /\u001b\[[0-9;]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;

/** Removes terminal escape sequences, for exports that are plain text (script, markdown). */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, '');
}
