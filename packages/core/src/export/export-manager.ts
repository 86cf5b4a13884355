import { stripTransient } from '../contents/nbformat/lines.js';
import { notFound } from '../errors.js';
import { HtmlExporter } from './html-exporter.js';
import { MarkdownExporter } from './markdown-exporter.js';
import { detectNbconvert, type NbconvertOptions } from './nbconvert-exporter.js';
import { parseExportNotebook } from './notebook.js';
import { NotebookExporter } from './notebook-exporter.js';
import { type PdfOptions, pdfExporter } from './pdf-exporter.js';
import { ScriptExporter } from './script-exporter.js';
import type { Exporter, ExportResult } from './types.js';

export interface ExportManagerOptions {
  /** Extra exporters; they win over built-ins of the same format. */
  exporters?: readonly Exporter[];
  /** Delegate other formats to nbconvert when installed (default true); `false` disables. */
  nbconvert?: NbconvertOptions | false;
  /** `pdf` by printing the HTML export in Chromium when LaTeX is missing (default on); `false` disables. */
  pdf?: PdfOptions | false;
}

/** The formats of `/api/nbconvert` and `/nbconvert/<format>`. Built-ins need no Python. */
export class ExportManager {
  private readonly builtIn: Map<string, Exporter>;
  private readonly nbconvertOptions: NbconvertOptions | false;
  private readonly pdfOptions: PdfOptions | false;
  private all: Promise<Map<string, Exporter>> | undefined;

  constructor(options: ExportManagerOptions = {}) {
    const exporters = [new ScriptExporter(), new MarkdownExporter(), new HtmlExporter(), new NotebookExporter()];
    this.builtIn = new Map([...exporters, ...(options.exporters ?? [])].map((e) => [e.format, e]));
    this.nbconvertOptions = options.nbconvert ?? {};
    this.pdfOptions = options.pdf ?? {};
  }

  /** `{format: {output_mimetype}}`, as `GET /api/nbconvert` answers. */
  async list(): Promise<Record<string, { output_mimetype: string }>> {
    const all = await this.exporters();
    const entries = [...all.values()].map((e) => [e.format, { output_mimetype: e.outputMimetype }] as const);
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  /** Throws the 404 of an unknown format, before any work on the notebook is done. */
  async assertFormat(format: string): Promise<void> {
    if (!(await this.exporters()).has(format)) throw notFound(`No exporter for format: ${format}`);
  }

  /** Converts an nbformat 4 notebook (validated here) to `format`. `name` is the file stem. */
  async export(format: string, notebook: unknown, name: string): Promise<ExportResult> {
    const exporter = (await this.exporters()).get(format);
    if (!exporter) throw notFound(`No exporter for format: ${format}`);
    // Transient keys (cell `trusted`, `orig_nbformat`) are the server's, not the notebook's.
    const clean =
      typeof notebook === 'object' && notebook !== null
        ? stripTransient(notebook as Record<string, unknown>)
        : notebook;
    return exporter.export({ notebook: parseExportNotebook(clean), name });
  }

  private exporters(): Promise<Map<string, Exporter>> {
    this.all ??= (async () => {
      const delegated = this.nbconvertOptions === false ? [] : await detectNbconvert(this.nbconvertOptions);
      const map = new Map<string, Exporter>(delegated.map((e) => [e.format, e]));
      // nbconvert lists `pdf` whether or not LaTeX is installed.
      const pdf = await pdfExporter(map.get('pdf'), this.builtIn.get('html') as Exporter, this.pdfOptions);
      if (pdf) map.set('pdf', pdf);
      else map.delete('pdf');
      for (const [format, exporter] of this.builtIn) map.set(format, exporter);
      return map;
    })();
    return this.all;
  }
}
