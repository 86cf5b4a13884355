import type { ExportNotebook } from './notebook.js';

export interface ExportResult {
  body: string | Uint8Array;
  /** Content type without charset. */
  mimetype: string;
  /** File extension including the dot, for `Content-Disposition`. */
  extension: string;
}

export interface ExportRequest {
  notebook: ExportNotebook;
  /** File stem used for titles and file names, e.g. `Analysis`. */
  name: string;
}

/** One output format of `/nbconvert/<format>`. */
export interface Exporter {
  readonly format: string;
  /** As listed by `GET /api/nbconvert` (may be `""`). */
  readonly outputMimetype: string;
  export(request: ExportRequest): Promise<ExportResult>;
}
