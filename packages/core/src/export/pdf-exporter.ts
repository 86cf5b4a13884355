import { access, constants, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { internalError } from '../errors.js';
import { runProcess } from '../util/run-process.js';
import type { Exporter, ExportRequest, ExportResult } from './types.js';

export interface PdfOptions {
  /** The browser that prints the HTML export; default the first of Chromium's usual names on the PATH. */
  chromium?: string;
  timeoutMs?: number;
}

const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/** The first of `names` that is an executable file in a directory of `$PATH`. */
export async function findOnPath(names: readonly string[], path = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const name of names) {
    for (const dir of path.split(delimiter)) {
      if (!dir) continue;
      const candidate = join(dir, name);
      if (
        await access(candidate, constants.X_OK).then(
          () => true,
          () => false,
        )
      )
        return candidate;
    }
  }
  return undefined;
}

/**
 * PDF without LaTeX: the built-in HTML export printed by headless Chromium, as nbconvert's
 * `webpdf` does. The page runs no scripts and loads nothing (its own CSP), and math is MathML,
 * which Chromium renders itself.
 */
export class ChromiumPdfExporter implements Exporter {
  readonly format = 'pdf';
  readonly outputMimetype = 'application/pdf';

  constructor(
    private readonly html: Exporter,
    private readonly chromium: string,
    private readonly timeoutMs = 120_000,
  ) {}

  async export(request: ExportRequest): Promise<ExportResult> {
    const { body } = await this.html.export(request);
    const dir = await mkdtemp(join(tmpdir(), 'nbserve-pdf-'));
    try {
      const page = join(dir, 'notebook.html');
      const out = join(dir, 'notebook.pdf');
      await writeFile(page, body);
      const args = [
        '--headless',
        '--disable-gpu',
        '--disable-extensions',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--no-default-browser-check',
        `--user-data-dir=${join(dir, 'profile')}`,
        '--no-pdf-header-footer',
        `--print-to-pdf=${out}`,
      ];
      // Chromium refuses to run as root inside its sandbox.
      if (process.getuid?.() === 0) args.push('--no-sandbox');
      const result = await runProcess([this.chromium, ...args, pathToFileURL(page).href], {
        timeoutMs: this.timeoutMs,
        cwd: dir,
        maxOutputBytes: 1024 * 1024,
      });
      const pdf = await readFile(out).catch(() => Buffer.alloc(0));
      if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-') {
        console.error(`[nbserve] printing to PDF failed (${result.code}): ${result.stderr.slice(-2000)}`);
        throw internalError(`PDF export failed: ${result.timedOut ? 'timed out' : 'the browser printed nothing'}`);
      }
      return { body: new Uint8Array(pdf), mimetype: 'application/pdf', extension: '.pdf' };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * The `pdf` format: nbconvert's (through LaTeX) when `xelatex` is on the PATH and nbconvert offers
 * it; else the HTML export printed by Chromium when there is one; else none.
 */
export async function pdfExporter(
  nbconvertPdf: Exporter | undefined,
  html: Exporter,
  options: PdfOptions | false,
): Promise<Exporter | undefined> {
  if (nbconvertPdf && (await findOnPath(['xelatex']))) return nbconvertPdf;
  if (options === false) return undefined;
  const chromium = options.chromium ?? (await findOnPath(CHROMIUM_NAMES));
  return chromium ? new ChromiumPdfExporter(html, chromium, options.timeoutMs) : undefined;
}
