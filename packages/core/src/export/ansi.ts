import { escapeHtml } from '../html/escape.js';

// ESC [ params final — SGR ("m") carries colour; every other CSI sequence is dropped, as are
// OSC sequences (ESC ] ... BEL/ST) and lone two-byte escapes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escapes is the point
const ESCAPES = /\u001b\[([0-9;]*)([@-~])|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;

/** Removes terminal escape sequences. */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPES, '');
}

interface Style {
  fg?: string;
  bg?: string;
  bold?: boolean;
  underline?: boolean;
}

/** Terminal text to escaped HTML with `<span>` colours (8/16, 256 and truecolor SGR). */
export function ansiToHtml(text: string): string {
  let html = '';
  let style: Style = {};
  let last = 0;
  for (const match of text.matchAll(ESCAPES)) {
    html += wrap(escapeHtml(text.slice(last, match.index)), style);
    last = match.index + match[0].length;
    if (match[2] === 'm') style = applySgr(style, match[1] ?? '');
  }
  return html + wrap(escapeHtml(text.slice(last)), style);
}

function wrap(escaped: string, style: Style): string {
  if (escaped === '') return '';
  const css: string[] = [];
  if (style.fg) css.push(`color:${style.fg}`);
  if (style.bg) css.push(`background-color:${style.bg}`);
  if (style.bold) css.push('font-weight:bold');
  if (style.underline) css.push('text-decoration:underline');
  return css.length === 0 ? escaped : `<span style="${css.join(';')}">${escaped}</span>`;
}

function applySgr(current: Style, params: string): Style {
  const codes = params === '' ? [0] : params.split(';').map((p) => Number.parseInt(p || '0', 10));
  const style: Style = { ...current };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] ?? 0;
    if (code === 0) {
      delete style.fg;
      delete style.bg;
      delete style.bold;
      delete style.underline;
    } else if (code === 1) style.bold = true;
    else if (code === 22) delete style.bold;
    else if (code === 4) style.underline = true;
    else if (code === 24) delete style.underline;
    else if (code >= 30 && code <= 37) style.fg = palette(code - 30, false);
    else if (code >= 90 && code <= 97) style.fg = palette(code - 90, true);
    else if (code >= 40 && code <= 47) style.bg = palette(code - 40, false);
    else if (code >= 100 && code <= 107) style.bg = palette(code - 100, true);
    else if (code === 39) delete style.fg;
    else if (code === 49) delete style.bg;
    else if (code === 38 || code === 48) {
      const [color, used] = extendedColor(codes, i + 1);
      i += used;
      if (color) style[code === 38 ? 'fg' : 'bg'] = color;
    }
  }
  return style;
}

function palette(index: number, bright: boolean): string {
  const base = [
    [0, 0, 0],
    [187, 0, 0],
    [0, 187, 0],
    [187, 187, 0],
    [0, 0, 187],
    [187, 0, 187],
    [0, 187, 187],
    [229, 229, 229],
  ][index] ?? [0, 0, 0];
  const rgb = bright ? base.map((c) => Math.min(255, c + 68)) : base;
  return `rgb(${rgb.join(',')})`;
}

/** 38;5;N and 38;2;R;G;B. Returns the colour and how many extra params it consumed. */
function extendedColor(codes: number[], at: number): [string | undefined, number] {
  if (codes[at] === 5) {
    const n = codes[at + 1] ?? 0;
    if (n < 16) return [palette(n % 8, n >= 8), 2];
    if (n < 232) {
      const c = n - 16;
      const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
      return [`rgb(${level(Math.floor(c / 36))},${level(Math.floor(c / 6) % 6)},${level(c % 6)})`, 2];
    }
    const gray = 8 + (n - 232) * 10;
    return [`rgb(${gray},${gray},${gray})`, 2];
  }
  if (codes[at] === 2) {
    const [r, g, b] = [codes[at + 1], codes[at + 2], codes[at + 3]].map((c) => Math.max(0, Math.min(255, c ?? 0)));
    return [`rgb(${r},${g},${b})`, 4];
  }
  return [undefined, 0];
}
