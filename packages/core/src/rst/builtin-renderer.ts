import { escapeHtml } from '../html/escape.js';
import { normalizeName, renderInline } from './inline.js';

/**
 * A reST renderer for the common subset, used when docutils is not installed: sections,
 * paragraphs, inline markup, bullet and enumerated lists, literal blocks (`::` and
 * `code`/`code-block` directives), block quotes, hyperlink targets and simple tables.
 * Other directives and comments are dropped. All text is escaped.
 */
export function renderRstBuiltin(source: string): { title: string; body: string } {
  const lines = source.replace(/\r\n?/g, '\n').replace(/\t/g, '        ').split('\n');
  const targets = new Map<string, string>();
  for (const line of lines) {
    const target = /^\.\.\s+_([^:]+):\s*(\S+)\s*$/.exec(line);
    if (target?.[1] && target[2]) targets.set(normalizeName(target[1].replace(/^`|`$/g, '')), target[2]);
  }
  const state: RenderState = { targets, styles: [], title: '' };
  return { body: renderBlocks(lines, state, 0), title: state.title };
}

interface RenderState {
  targets: Map<string, string>;
  /** Section adornment styles in order of first use: their index is the heading level. */
  styles: string[];
  title: string;
}

const ADORNMENT = /^([!-/:-@[-`{-~])\1{2,}\s*$/;
const BULLET = /^([-*+•])\s+(.*)$/;
const ENUMERATED = /^(?:(\d+|#|[a-zA-Z])[.)]|\((\d+|#|[a-zA-Z])\))\s+(.*)$/;
const SIMPLE_TABLE_BORDER = /^=+(?:\s+=+)+\s*$/;
const MAX_DEPTH = 20;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Lines from `start` that are blank or indented more than `than`, dedented by `by`. */
function indentedBlock(lines: string[], start: number, than: number): { block: string[]; end: number } {
  let end = start;
  while (end < lines.length && ((lines[end] ?? '').trim() === '' || indentOf(lines[end] ?? '') > than)) end++;
  while (end > start && (lines[end - 1] ?? '').trim() === '') end--;
  const slice = lines.slice(start, end);
  const common = Math.min(...slice.filter((l) => l.trim() !== '').map(indentOf));
  return { block: slice.map((l) => l.slice(Number.isFinite(common) ? common : 0)), end };
}

function renderBlocks(lines: string[], state: RenderState, depth: number): string {
  if (depth > MAX_DEPTH) return `<pre>${escapeHtml(lines.join('\n'))}</pre>`;
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const next = lines[i + 1] ?? '';
    if (line.trim() === '') {
      i++;
      continue;
    }
    // Section title, with or without an overline.
    if (
      ADORNMENT.test(line) &&
      lines[i + 2] !== undefined &&
      ADORNMENT.test(lines[i + 2] ?? '') &&
      next.trim() !== ''
    ) {
      out.push(heading(next.trim(), `o${line.trim()[0]}`, state));
      i += 3;
      continue;
    }
    if (
      indentOf(line) === 0 &&
      next.trim() !== '' &&
      ADORNMENT.test(next) &&
      next.trim().length >= line.trim().length
    ) {
      out.push(heading(line.trim(), `u${next.trim()[0]}`, state));
      i += 2;
      continue;
    }
    if (SIMPLE_TABLE_BORDER.test(line)) {
      const table = simpleTable(lines, i, state);
      if (table) {
        out.push(table.html);
        i = table.end;
        continue;
      }
    }
    if (line.startsWith('..')) {
      // Directives, comments and targets: only code blocks produce output.
      const { block, end } = indentedBlock(lines, i + 1, indentOf(line));
      const code = /^\.\.\s+(?:code|code-block|sourcecode)::\s*([\w+-]*)/.exec(line);
      if (code) {
        let options = 0; // leading `:linenos:`-style directive options are not code
        while (options < block.length && /^:\w[\w-]*:/.test((block[options] ?? '').trim())) options++;
        const body = block.slice(options);
        out.push(
          `<pre class="code ${escapeHtml(code[1] ?? '')}"><code>${escapeHtml(trimBlank(body).join('\n'))}</code></pre>`,
        );
      }
      i = end;
      continue;
    }
    if (indentOf(line) > 0) {
      const { block, end } = indentedBlock(lines, i, 0);
      out.push(`<blockquote>${renderBlocks(block, state, depth + 1)}</blockquote>`);
      i = end;
      continue;
    }
    const list = listBlock(lines, i, state, depth);
    if (list) {
      out.push(list.html);
      i = list.end;
      continue;
    }
    // Paragraph: up to the next blank line.
    let end = i;
    while (end < lines.length && (lines[end] ?? '').trim() !== '' && (end === i || indentOf(lines[end] ?? '') === 0))
      end++;
    let text = lines.slice(i, end).join('\n');
    const literal = /::\s*$/.test(text);
    if (literal) text = text.replace(/\s*::\s*$/, (m) => (m.trim() === '::' && /\s::\s*$/.test(m) ? '' : ':'));
    if (text.trim() !== '') out.push(`<p>${renderInline(text, state.targets)}</p>`);
    i = end;
    if (literal) {
      while (i < lines.length && (lines[i] ?? '').trim() === '') i++;
      if (i < lines.length && indentOf(lines[i] ?? '') > 0) {
        const { block, end: after } = indentedBlock(lines, i, 0);
        out.push(`<pre class="literal-block">${escapeHtml(block.join('\n'))}</pre>`);
        i = after;
      }
    }
  }
  return out.join('\n');
}

function trimBlank(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] ?? '').trim() === '') start++;
  while (end > start && (lines[end - 1] ?? '').trim() === '') end--;
  return lines.slice(start, end);
}

function heading(text: string, style: string, state: RenderState): string {
  let level = state.styles.indexOf(style);
  if (level === -1) {
    state.styles.push(style);
    level = state.styles.length - 1;
  }
  if (level === 0 && state.title === '') state.title = text;
  const tag = `h${Math.min(level + 1, 6)}`;
  const id = normalizeName(text)
    .replace(/[^\w]+/g, '-')
    .replace(/^-|-$/g, '');
  return `<${tag} id="${escapeHtml(id)}">${renderInline(text, state.targets)}</${tag}>`;
}

function listBlock(
  lines: string[],
  start: number,
  state: RenderState,
  depth: number,
): { html: string; end: number } | undefined {
  const first = lines[start] ?? '';
  const bullet = BULLET.exec(first);
  const enumerated = bullet ? undefined : ENUMERATED.exec(first);
  if (!bullet && !enumerated) return undefined;
  const items: string[] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    const match = bullet ? BULLET.exec(line) : ENUMERATED.exec(line);
    if (!match || indentOf(line) !== 0) break;
    const content = (bullet ? match[2] : match[3]) ?? '';
    const markerWidth = line.length - content.length;
    const itemLines = [content];
    let j = i + 1;
    while (j < lines.length) {
      const l = lines[j] ?? '';
      if (l.trim() === '') {
        const after = lines.slice(j).find((x) => x.trim() !== '');
        if (after === undefined || indentOf(after) < markerWidth) break;
        itemLines.push('');
      } else if (indentOf(l) >= markerWidth) itemLines.push(l.slice(markerWidth));
      else break;
      j++;
    }
    const inner = renderBlocks(itemLines, state, depth + 1);
    // A one-paragraph item renders without the <p>, as docutils does for simple lists.
    items.push(`<li>${inner.replace(/^<p>([\s\S]*)<\/p>$/, (m, p: string) => (p.includes('<p>') ? m : p))}</li>`);
    i = j;
    while (i < lines.length && (lines[i] ?? '').trim() === '') i++;
    const upcoming = lines[i] ?? '';
    if (!(bullet ? BULLET.test(upcoming) : ENUMERATED.test(upcoming))) break;
  }
  const tag = bullet ? 'ul' : 'ol';
  return { html: `<${tag}>\n${items.join('\n')}\n</${tag}>`, end: i };
}

/** Simple tables: `===` borders; an inner border separates the header row(s). */
function simpleTable(lines: string[], start: number, state: RenderState): { html: string; end: number } | undefined {
  const border = lines[start] ?? '';
  const columns = [...border.matchAll(/=+/g)].map((m) => ({ from: m.index, to: m.index + m[0].length }));
  const rows: string[][] = [];
  let headerRows = 0;
  let i = start + 1;
  for (; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (SIMPLE_TABLE_BORDER.test(line)) {
      const after = lines[i + 1];
      if (headerRows === 0 && after !== undefined && after.trim() !== '' && !SIMPLE_TABLE_BORDER.test(after)) {
        headerRows = rows.length;
        continue;
      }
      i++;
      break;
    }
    if (line.trim() === '') continue;
    const cells = columns.map((col, k) => {
      const last = k === columns.length - 1;
      return (last ? line.slice(col.from) : line.slice(col.from, columns[k + 1]?.from ?? col.to)).trim();
    });
    // A line whose first column is blank continues the previous row.
    const previous = rows[rows.length - 1];
    if (cells[0] === '' && previous) {
      cells.forEach((c, k) => {
        previous[k] = `${previous[k] ?? ''} ${c}`.trim();
      });
    } else rows.push(cells);
  }
  if (rows.length === 0) return undefined;
  const cell = (tag: string, text: string) => `<${tag}>${renderInline(text, state.targets)}</${tag}>`;
  const head = rows.slice(0, headerRows).map((r) => `<tr>${r.map((c) => cell('th', c)).join('')}</tr>`);
  const body = rows.slice(headerRows).map((r) => `<tr>${r.map((c) => cell('td', c)).join('')}</tr>`);
  const thead = head.length ? `<thead>${head.join('')}</thead>` : '';
  return { html: `<table class="docutils">${thead}<tbody>${body.join('')}</tbody></table>`, end: i };
}
