import type { Exporter, ExportRequest, ExportResult } from './types.js';

/** The notebook itself, as nbformat writes it (one-space indent, trailing newline). */
export class NotebookExporter implements Exporter {
  readonly format = 'notebook';
  readonly outputMimetype = 'application/json';

  async export({ notebook }: ExportRequest): Promise<ExportResult> {
    return { body: `${JSON.stringify(notebook, null, 1)}\n`, mimetype: 'application/json', extension: '.ipynb' };
  }
}
