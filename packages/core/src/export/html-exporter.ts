import { escapeHtml } from '../html/escape.js';
import { ansiToHtml } from '../render/ansi-html.js';
import { neutralizeHtml } from '../render/neutralize.js';
import { applyCarriageReturns } from '../util/stream-text.js';
import { bundleText, type ExportCell, type ExportNotebook, type ExportOutput, joinSource } from './notebook.js';
import type { Exporter, ExportRequest, ExportResult } from './types.js';

type Markdown = typeof import('../render/markdown-html.js');
let loadedMarkdown: Markdown | undefined;

/** marked and KaTeX take a while to import: load them with the first export, not at server start. */
async function loadMarkdown(): Promise<Markdown> {
  loadedMarkdown ??= await import('../render/markdown-html.js');
  return loadedMarkdown;
}

/**
 * The export's options of the shared renderers: the page stands alone (images only inline,
 * MathML that browsers render without KaTeX's fonts, no dead links), raw HTML neutralized under
 * its own CSP, terminal colours as inline styles.
 */
export const EXPORT_MARKDOWN = { rawHtml: 'neutralize', images: 'embedded', math: 'mathml', refused: 'text' } as const;
const EXPORT_ANSI = { classes: false } as const;

// The page stands alone and runs nothing: no scripts (so no inline handlers or javascript:
// URLs either), no remote loads, no forms, no <base>. Meant for a meta tag and the header both.
export const EXPORT_HTML_CSP =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'";

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#222;line-height:1.5}
.cell{margin:0 0 1em 0;display:flex;flex-direction:column}
.row{display:flex;align-items:flex-start}
.prompt{flex:0 0 7em;font-family:monospace;color:#303f9f;text-align:right;padding-right:.6em;white-space:nowrap}
.prompt.out{color:#d84315}
.body{flex:1;min-width:0;overflow-x:auto}
pre{margin:0;font-family:"SFMono-Regular",Menlo,Consolas,monospace;font-size:.9em;white-space:pre-wrap;word-break:break-word}
.input pre{background:#f5f5f5;border:1px solid #e0e0e0;border-radius:3px;padding:.5em}
.stderr{background:#fdd}
.error pre{background:#fff0f0}
img{max-width:100%}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em}
math[display=block]{display:block;margin:.5em 0;overflow-x:auto}
`;

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * A self-contained HTML page: markdown rendered, code with prompts, every output rendered
 * (HTML, images inline, ANSI colours converted). Everything from the notebook is escaped or
 * neutralized, and the page carries a script-blocking CSP of its own for when it is saved.
 */
export class HtmlExporter implements Exporter {
  readonly format = 'html';
  readonly outputMimetype = 'text/html';

  async export({ notebook, name }: ExportRequest): Promise<ExportResult> {
    const title = notebook.metadata.title ?? name;
    const markdown = await loadMarkdown();
    const cells = notebook.cells.map((cell) => renderCell(cell, notebook, markdown)).join('\n');
    const body = `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${EXPORT_HTML_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main class="notebook">
${cells}
</main>
</body>
</html>
`;
    return { body, mimetype: 'text/html', extension: '.html' };
  }
}

function renderCell(cell: ExportCell, notebook: ExportNotebook, markdown: Markdown): string {
  const source = joinSource(cell.source);
  if (cell.cell_type === 'markdown') {
    return `<div class="cell markdown"><div class="row"><div class="prompt"></div><div class="body">${markdown.renderMarkdown(source, { ...EXPORT_MARKDOWN, attachments: cell.attachments ?? {} })}</div></div></div>`;
  }
  if (cell.cell_type !== 'code') {
    return `<div class="cell raw"><div class="row"><div class="prompt"></div><div class="body"><pre>${escapeHtml(source)}</pre></div></div></div>`;
  }
  const language = escapeHtml(notebook.metadata.language_info?.name ?? notebook.metadata.kernelspec?.language ?? '');
  const count = cell.execution_count ?? ' ';
  const input = `<div class="row input"><div class="prompt">In&nbsp;[${count}]:</div><div class="body"><pre class="language-${language}">${escapeHtml(source)}</pre></div></div>`;
  const outputs = (cell.outputs ?? []).map((output) => renderOutput(output, markdown)).join('');
  return `<div class="cell code">${input}${outputs}</div>`;
}

function renderOutput(output: ExportOutput, markdown: Markdown): string {
  let prompt = '';
  let html: string | undefined;
  if (output.output_type === 'stream') {
    const stderr = output.name === 'stderr' ? ' stderr' : '';
    html = `<pre class="stream${stderr}">${ansiToHtml(applyCarriageReturns(joinSource(output.text)), EXPORT_ANSI)}</pre>`;
  } else if (output.output_type === 'error') {
    html = `<div class="error"><pre>${ansiToHtml((output.traceback ?? [`${output.ename}: ${output.evalue}`]).join('\n'), EXPORT_ANSI)}</pre></div>`;
  } else if (output.output_type === 'execute_result' || output.output_type === 'display_data') {
    if (output.output_type === 'execute_result') prompt = `Out[${output.execution_count ?? ' '}]:`;
    html = renderBundle(output.data ?? {}, markdown);
  }
  if (html === undefined) return '';
  const cls = prompt ? 'prompt out' : 'prompt';
  return `<div class="row output"><div class="${cls}">${prompt.replace(' ', '&nbsp;')}</div><div class="body">${html}</div></div>`;
}

/** The richest representation a static page can show, in Jupyter's display order. */
function renderBundle(data: Record<string, unknown>, markdown: Markdown): string | undefined {
  if (data['text/html'] !== undefined)
    return `<div class="html">${neutralizeHtml(bundleText(data['text/html']))}</div>`;
  if (data['image/svg+xml'] !== undefined) {
    // As an <img>, an SVG cannot run scripts or reach the page.
    const base64 = Buffer.from(bundleText(data['image/svg+xml']), 'utf8').toString('base64');
    return `<img src="data:image/svg+xml;base64,${base64}" alt="svg">`;
  }
  for (const type of IMAGE_TYPES) {
    if (data[type] === undefined) continue;
    const base64 = bundleText(data[type]).replace(/\s/g, '');
    if (/^[A-Za-z0-9+/=]+$/.test(base64)) return `<img src="data:${type};base64,${base64}" alt="${type.slice(6)}">`;
  }
  if (data['text/markdown'] !== undefined)
    return `<div class="markdown">${markdown.renderMarkdown(bundleText(data['text/markdown']), EXPORT_MARKDOWN)}</div>`;
  if (data['text/latex'] !== undefined)
    return `<div class="latex">${markdown.renderLatex(bundleText(data['text/latex']), EXPORT_MARKDOWN)}</div>`;
  if (data['application/json'] !== undefined) {
    return `<pre class="json">${escapeHtml(JSON.stringify(data['application/json'], null, 2))}</pre>`;
  }
  if (data['text/plain'] !== undefined) return `<pre>${ansiToHtml(bundleText(data['text/plain']), EXPORT_ANSI)}</pre>`;
  return undefined;
}
