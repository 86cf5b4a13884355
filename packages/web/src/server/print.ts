import { escapeHtml } from '@nbserve/core/html';
import { isObject } from '@nbserve/core/is-object';
import { type Attachments, ansiToHtml, type MarkdownOptions, renderLatex, renderMarkdown } from '@nbserve/core/render';
import type { WebAssets } from '../bundle/build.js';
import { cleanBase64, joinText, type MimeBundle, pickMime } from '../shared/mime.js';
import { applyCarriageReturns } from '../shared/stream-text.js';
import { renderPage } from './page.js';

/** The loosely typed nbformat v4 shapes the print view reads; anything else is skipped. */
interface PrintCell {
  cell_type?: unknown;
  source?: unknown;
  execution_count?: unknown;
  outputs?: unknown;
  attachments?: unknown;
}

/**
 * The print view's options of the shared renderers: every notebook is untrusted here, so raw HTML
 * is shown as text; the page loads KaTeX's CSS and the `ansi-*` classes like the notebook page.
 */
export const PRINT_MARKDOWN: MarkdownOptions = {
  rawHtml: 'escape',
  images: 'linked',
  math: 'htmlAndMathml',
  refused: 'hash',
};
const PRINT_ANSI = { classes: true };

function renderBundle(bundle: MimeBundle): string {
  // Static pages never run output scripts or raw HTML: the print view treats every notebook
  // as untrusted, so HTML and SVG fall back to safer representations.
  const safe: MimeBundle = { ...bundle };
  delete safe['text/html'];
  delete safe['application/javascript'];
  const mime = pickMime(safe, false);
  if (mime === undefined) return '';
  const data = safe[mime];
  switch (mime) {
    case 'image/png':
    case 'image/jpeg':
    case 'image/gif':
    case 'image/svg+xml': {
      const b64 = mime === 'image/svg+xml' ? Buffer.from(joinText(data), 'utf8').toString('base64') : cleanBase64(data);
      return b64 ? `<img class="output-image" alt="" src="data:${mime};base64,${b64}">` : '';
    }
    case 'text/markdown':
      return `<div class="output-markdown">${renderMarkdown(joinText(data), PRINT_MARKDOWN)}</div>`;
    case 'text/latex':
      return `<div class="output-latex">${renderLatex(joinText(data), PRINT_MARKDOWN)}</div>`;
    case 'application/json':
      return `<pre class="output-json">${escapeHtml(JSON.stringify(data, null, 2))}</pre>`;
    default:
      return `<pre class="output-text">${ansiToHtml(joinText(data), PRINT_ANSI)}</pre>`;
  }
}

function renderOutput(output: Record<string, unknown>): string {
  switch (output.output_type) {
    case 'stream': {
      const cls = output.name === 'stderr' ? 'output-stderr' : 'output-stdout';
      return `<pre class="output-stream ${cls}">${ansiToHtml(applyCarriageReturns(joinText(output.text)), PRINT_ANSI)}</pre>`;
    }
    case 'error': {
      const tb = Array.isArray(output.traceback) ? output.traceback.map((l) => joinText(l)).join('\n') : '';
      return `<pre class="output-error">${ansiToHtml(tb || `${joinText(output.ename)}: ${joinText(output.evalue)}`, PRINT_ANSI)}</pre>`;
    }
    case 'execute_result':
    case 'display_data':
      return renderBundle((output.data ?? {}) as MimeBundle);
    default:
      return '';
  }
}

function attachmentsOf(cell: PrintCell): Attachments {
  return isObject(cell.attachments) ? cell.attachments : {};
}

function prompt(count: unknown): string {
  return typeof count === 'number' ? String(count) : ' ';
}

/** Renders a notebook's cells to static HTML (no scripts, every string escaped). */
export function renderNotebookHtml(notebook: unknown): string {
  const cells = (notebook as { cells?: unknown })?.cells;
  if (!Array.isArray(cells)) return '<p class="print-empty">This notebook has no cells.</p>';
  const parts: string[] = [];
  for (const raw of cells as PrintCell[]) {
    const source = joinText(raw?.source);
    if (raw?.cell_type === 'markdown') {
      parts.push(
        `<div class="print-cell markdown-cell">${renderMarkdown(source, { ...PRINT_MARKDOWN, attachments: attachmentsOf(raw) })}</div>`,
      );
    } else if (raw?.cell_type === 'code') {
      const outputs: unknown[] = Array.isArray(raw.outputs) ? raw.outputs : [];
      const rendered = outputs.map((o) => (isObject(o) ? renderOutput(o) : '')).join('');
      parts.push(
        `<div class="print-cell code-cell"><div class="print-input"><span class="prompt">In&nbsp;[${prompt(raw.execution_count)}]:</span><pre class="source">${escapeHtml(source)}</pre></div>${rendered ? `<div class="print-outputs">${rendered}</div>` : ''}</div>`,
      );
    } else {
      parts.push(`<div class="print-cell raw-cell"><pre class="source">${escapeHtml(source)}</pre></div>`);
    }
  }
  return parts.join('\n');
}

/**
 * The whole print page for a notebook: static render, print stylesheet, no editor. Exported
 * for the older-generation `/<notebook_id>/print` route as well as `/print/<path>`.
 */
export function renderPrintPage(input: {
  baseUrl: string;
  path: string;
  notebook: unknown;
  assets: WebAssets;
}): string {
  const name = input.path.split('/').pop() ?? input.path;
  const body = `<header class="print-header"><h1>${escapeHtml(name.replace(/\.ipynb$/, ''))}</h1></header><main class="print-notebook">${renderNotebookHtml(input.notebook)}</main>`;
  return renderPage({
    entry: 'print',
    title: name,
    config: { baseUrl: input.baseUrl, path: input.path },
    assets: input.assets,
    bodyHtml: body,
  });
}
