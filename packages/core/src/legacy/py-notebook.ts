import { newNotebook } from '../contents/nbformat/notebook.js';

type Json = Record<string, unknown>;

// nbformat v3's py format: `# <codecell>`, `# <markdowncell>`, `# <rawcell>`,
// `# <headingcell level=N>` markers; markdown/raw/heading lines are `# `-commented.
const MARKER = /^# <(codecell|markdowncell|rawcell|htmlcell|headingcell(?: level=(\d))?)>\s*$/;
const PREAMBLE = /^#\s*(?:-\*- coding|<nbformat>|!)/;

/**
 * Reads a notebook uploaded in IPython's `.py` format (`POST /notebooks?format=py`) into a v4
 * notebook. A plain script without markers becomes one code cell, as IPython read it.
 */
export function notebookFromPy(text: string): Json {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const cells: Json[] = [];
  let kind = 'codecell';
  let level = 1;
  let buffer: string[] = [];
  const flush = () => {
    const body = trimBlankLines(buffer);
    buffer = [];
    if (body.length === 0) return;
    if (kind === 'codecell') {
      cells.push({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: body.join('\n') });
      return;
    }
    const uncommented = body.map((line) => line.replace(/^# ?/, '')).join('\n');
    if (kind.startsWith('headingcell')) {
      cells.push({
        cell_type: 'markdown',
        metadata: {},
        source: `${'#'.repeat(level)} ${uncommented.replace(/\n/g, ' ')}`,
      });
    } else {
      cells.push({ cell_type: kind === 'rawcell' ? 'raw' : 'markdown', metadata: {}, source: uncommented });
    }
  };
  let started = false;
  for (const line of lines) {
    const marker = MARKER.exec(line);
    if (marker?.[1]) {
      flush();
      started = true;
      kind = marker[1].startsWith('headingcell') ? 'headingcell' : marker[1];
      level = Number(marker[2] ?? '1');
      continue;
    }
    if (!started && PREAMBLE.test(line)) continue;
    buffer.push(line);
  }
  flush();
  const nb = newNotebook();
  nb.cells = cells.map((cell, i) => ({ id: `py-${i}`, ...cell }));
  nb.metadata = { language_info: { name: 'python' } };
  return nb;
}

function trimBlankLines(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] ?? '').trim() === '') start++;
  while (end > start && (lines[end - 1] ?? '').trim() === '') end--;
  return lines.slice(start, end);
}
