import { applyCarriageReturns } from '../util/stream-text.js';
import { bundleText, type ExportOutput, joinSource, notebookLanguage } from './notebook.js';
import { stripAnsi } from './strip-ansi.js';
import type { Exporter, ExportRequest, ExportResult } from './types.js';

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml'];

/**
 * Markdown with code cells fenced and outputs included. Images are inlined as data URIs so the
 * result is one self-contained file (nbconvert writes them beside it and zips both).
 */
export class MarkdownExporter implements Exporter {
  readonly format = 'markdown';
  readonly outputMimetype = 'text/markdown';

  async export({ notebook }: ExportRequest): Promise<ExportResult> {
    const language = notebookLanguage(notebook);
    const parts: string[] = [];
    for (const cell of notebook.cells) {
      const source = joinSource(cell.source);
      if (cell.cell_type === 'code') {
        parts.push(fence(source, language));
        for (const output of cell.outputs ?? []) {
          const rendered = renderOutput(output);
          if (rendered) parts.push(rendered);
        }
      } else {
        parts.push(source);
      }
    }
    return { body: `${parts.join('\n\n')}\n`, mimetype: 'text/markdown', extension: '.md' };
  }
}

function fence(text: string, info = ''): string {
  // A fence longer than any backtick run inside keeps the block closed.
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${info}\n${text}\n${marks}`;
}

function renderOutput(output: ExportOutput): string | undefined {
  if (output.output_type === 'stream') return fence(applyCarriageReturns(stripAnsi(joinSource(output.text))));
  if (output.output_type === 'error') return fence(stripAnsi((output.traceback ?? []).join('\n')));
  const data = output.data ?? {};
  for (const type of IMAGE_TYPES) {
    if (data[type] === undefined) continue;
    const text = bundleText(data[type]);
    const base64 = type === 'image/svg+xml' ? Buffer.from(text, 'utf8').toString('base64') : text.replace(/\s/g, '');
    return `![${type.slice(6)}](data:${type};base64,${base64})`;
  }
  if (data['text/markdown'] !== undefined) return bundleText(data['text/markdown']);
  if (data['text/html'] !== undefined) return bundleText(data['text/html']);
  if (data['text/latex'] !== undefined) return bundleText(data['text/latex']);
  if (data['text/plain'] !== undefined) return fence(stripAnsi(bundleText(data['text/plain'])));
  return undefined;
}
