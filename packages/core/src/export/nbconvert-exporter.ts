import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { internalError } from '../errors.js';
import { runProcess } from '../util/run-process.js';
import type { Exporter, ExportRequest, ExportResult } from './types.js';
import { createZip } from './zip.js';

/**
 * Mimetypes and extensions of nbconvert's exporters (from their classes' `output_mimetype`).
 * Not `webpdf`: it needs pyppeteer, and `pdf` prints the HTML export in Chromium the same way.
 */
const KNOWN: Record<string, { mimetype: string; extension: string }> = {
  asciidoc: { mimetype: 'text/asciidoc', extension: '.asciidoc' },
  latex: { mimetype: 'text/latex', extension: '.tex' },
  pdf: { mimetype: 'application/pdf', extension: '.pdf' },
  python: { mimetype: 'text/x-python', extension: '.py' },
  rst: { mimetype: 'text/restructuredtext', extension: '.rst' },
  slides: { mimetype: 'text/html', extension: '.slides.html' },
};

export interface NbconvertOptions {
  /** How to run nbconvert; default `/usr/bin/python3 -m nbconvert`. */
  command?: readonly string[];
  timeoutMs?: number;
}

/**
 * Finds out, once, which of nbconvert's formats this machine can produce. nbconvert is an
 * optional extra: when it is missing the built-in exporters are all there is.
 */
export async function detectNbconvert(options: NbconvertOptions = {}): Promise<NbconvertExporter[]> {
  const command = options.command ?? ['/usr/bin/python3', '-m', 'nbconvert'];
  const result = await runProcess([...command, '--help-all'], { timeoutMs: 30_000 });
  if (result.code !== 0) return [];
  const listed = /Options include \[([^\]]*)\]/.exec(result.stdout.toString('utf8'))?.[1];
  const available = listed ? [...listed.matchAll(/'(\w+)'/g)].map((m) => m[1] as string) : Object.keys(KNOWN);
  return available
    .filter((format) => KNOWN[format])
    .map((format) => new NbconvertExporter(format, command, options.timeoutMs));
}

/** One nbconvert format, run as a subprocess on a temporary copy of the notebook. */
export class NbconvertExporter implements Exporter {
  readonly outputMimetype: string;

  constructor(
    readonly format: string,
    private readonly command: readonly string[],
    private readonly timeoutMs = 120_000,
  ) {
    this.outputMimetype = KNOWN[format]?.mimetype ?? '';
  }

  async export({ notebook, name }: ExportRequest): Promise<ExportResult> {
    const dir = await mkdtemp(join(tmpdir(), 'nbserve-nbconvert-'));
    try {
      const stem = name.replace(/[^\w.-]+/g, '_') || 'notebook';
      const input = join(dir, `${stem}.ipynb`);
      const outDir = join(dir, 'out');
      await writeFile(input, JSON.stringify(notebook));
      const result = await runProcess([...this.command, '--to', this.format, '--output-dir', outDir, input], {
        timeoutMs: this.timeoutMs,
        cwd: dir,
      });
      if (result.code !== 0) {
        const last = result.stderr.trim().split('\n').pop() ?? '';
        console.error(`[nbserve] nbconvert --to ${this.format} failed: ${result.stderr.slice(-2000)}`);
        const why = result.timedOut ? 'timed out' : last.replaceAll(dir, '').slice(0, 300);
        throw internalError(`nbconvert failed: ${why}`);
      }
      const produced = (await readdir(outDir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
      const first = produced[0];
      if (!first) throw internalError('nbconvert failed: no output');
      if (produced.length > 1) {
        // Side files (images of a markdown/rst/latex export) travel with the document, as upstream.
        const entries = await Promise.all(
          produced.map(async (e) => {
            const path = join(e.parentPath, e.name);
            return { path: relative(outDir, path), data: new Uint8Array(await readFile(path)) };
          }),
        );
        return { body: createZip(entries), mimetype: 'application/zip', extension: '.zip' };
      }
      const known = KNOWN[this.format] ?? { mimetype: 'application/octet-stream', extension: '' };
      return { body: new Uint8Array(await readFile(join(first.parentPath, first.name))), ...known };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
