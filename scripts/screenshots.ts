/**
 * Writes the README's screenshots, docs/screenshots/dashboard.png, notebook.png, notebook-dark.png
 * (the dark theme, with the table of contents) and widgets.png (or into the
 * directory given): a real nbserve over a temp root, headless Chromium, a notebook with rich
 * outputs run on a real python3 kernel. The test suite never writes them.
 *
 *   pnpm screenshots [out-dir]
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@nbserve/http';
import type { Page } from 'playwright-core';
import { launchChromium } from '../testing/chromium.js';
import { TOKEN } from '../testing/token.js';
import { widgetsScreenshot, writeWidgetsNotebook } from './screenshot-widgets.js';

const DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/screenshots');
const NOTEBOOK = 'Rich outputs.ipynb';

const code = (...lines: string[]) => ({
  cell_type: 'code',
  metadata: {},
  execution_count: null,
  outputs: [],
  source: lines.join('\n'),
});
const markdown = (...lines: string[]) => ({ cell_type: 'markdown', metadata: {}, source: lines.join('\n') });

/** Stream, traceback, a PNG plot with math, `\r` progress, clear_output, update_display_data, HTML. */
const CELLS = [
  code('print("hello stream")', '6 * 7'),
  code('1 / 0'),
  code(
    '# A PNG drawn with the standard library only (no matplotlib needed)',
    'import math, struct, zlib',
    'from IPython.display import Image, Math, display',
    'W, H = 400, 160',
    'px = [[(255, 255, 255)] * W for _ in range(H)]',
    'for x in range(W):',
    '    px[H // 2][x] = (180, 180, 180)',
    '    y = int(H / 2 - math.sin(x / W * 2 * math.pi) * (H / 2 - 12))',
    '    for dy in (-1, 0, 1):',
    '        px[y + dy][x] = (31, 119, 180)',
    "raw = b''.join(b'\\0' + bytes(c for p in row for c in p) for row in px)",
    "chunk = lambda t, d: struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))",
    "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', W, H, 8, 2, 0, 0, 0))",
    "png += chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')",
    "display(Image(data=png), Math(r'\\int_0^1 x^2\\,dx = \\frac{1}{3}'))",
  ),
  code(
    'import time',
    'for i in range(1, 6):',
    "    print(f'\\rprogress {i * 20}%', end='', flush=True)",
    '    time.sleep(0.05)',
    'print()',
  ),
  code(
    'from IPython.display import clear_output, display',
    'for i in range(3):',
    '    clear_output(wait=True)',
    "    print('step', i)",
  ),
  code("handle = display('first', display_id=True)", "handle.update('second')"),
  code(
    'from IPython.display import HTML',
    'HTML(\'<b>HTML output</b>, its <i>scripts</i> run in a sandboxed frame: <span id="n"></span>\'',
    '     \'<script>document.getElementById("n").textContent = 6 * 7</script>\')',
  ),
  markdown('# Results', '', 'Energy: $E = mc^2$ and **bold**'),
];

/** A home directory that looks used: folders, notebooks, data, an old file. */
async function writeRoot(root: string): Promise<void> {
  await fs.mkdir(path.join(root, 'Project'), { recursive: true });
  await fs.mkdir(path.join(root, 'data'));
  const notebook = (cells: unknown[]) =>
    JSON.stringify({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' } },
      cells,
    });
  await fs.writeFile(path.join(root, NOTEBOOK), notebook(CELLS));
  await fs.writeFile(path.join(root, 'analysis.ipynb'), notebook([code('import csv')]));
  await fs.writeFile(path.join(root, 'measurements.csv'), 'day,temperature\n1,12.5\n2,13.1\n3,11.8\n');
  await fs.writeFile(path.join(root, 'notes.md'), '# Notes\n\nTo do: plot the temperatures.\n');
  await fs.writeFile(path.join(root, 'old.txt'), 'old');
  const past = new Date('2020-01-01T00:00:00Z');
  await fs.utimes(path.join(root, 'old.txt'), past, past);
  await writeWidgetsNotebook(root);
}

/**
 * Runs the code cells one by one, as a person would (a "run all" stops at the traceback), and
 * waits for each prompt number, then for the rich outputs this screenshot is for.
 */
async function runCells(page: Page): Promise<void> {
  const cells = page.locator('.notebook-cells > .cell.code-cell');
  for (let i = 0; i < (await cells.count()); i++) {
    const cell = cells.nth(i);
    await cell.locator('.input-area').click();
    await page.keyboard.press('Shift+Enter');
    await page.waitForFunction(
      (element) =>
        element !== null &&
        !element.classList.contains('running') &&
        /^In \[\d+\]:$/.test(element.querySelector('.input-prompt')?.textContent ?? ''),
      await cell.elementHandle(),
      { timeout: 60_000 },
    );
  }
  await page.waitForFunction(
    () => (document.querySelector('img.output-image') as HTMLImageElement | null)?.naturalWidth === 400,
  );
  await page.locator('.output-latex .katex').waitFor();
  await page.locator('iframe.output-frame').waitFor();
  await page.locator('.markdown-cell.rendered h1').waitFor();
}

/** Writes dashboard.png, notebook.png, notebook-dark.png and widgets.png into `outDir`; returns their paths. */
export async function writeScreenshots(outDir: string): Promise<string[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nbserve-screenshots-'));
  const root = path.join(dir, 'root');
  await writeRoot(root);
  const server = await serve({
    root,
    port: 0,
    ip: '127.0.0.1',
    token: TOKEN,
    configDir: path.join(dir, 'config'),
    dataDir: path.join(dir, 'data'),
    runtimeDir: path.join(dir, 'runtime'),
  });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await fs.mkdir(outDir, { recursive: true });
    const dashboard = path.join(outDir, 'dashboard.png');
    await page.goto(`${server.url}tree?token=${TOKEN}`);
    await page.waitForSelector('body[data-ready]');
    await page.locator(`.vlist .row[data-name="${NOTEBOOK}"]`).waitFor();
    await page.screenshot({ path: dashboard });

    const notebook = path.join(outDir, 'notebook.png');
    await page.goto(`${server.url}notebooks/${encodeURIComponent(NOTEBOOK)}`);
    await page.waitForSelector('body[data-ready]');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
    await runCells(page);
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    await page.locator('.notebook-cells > .cell .input-prompt').first().click();
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.evaluate(() => {
      document.getElementById('toasts')?.remove();
      window.scrollTo(0, 0);
    });
    await page.screenshot({ path: notebook });

    // The system asks for dark: the page follows (prefers-color-scheme); the table of contents open.
    const dark = path.join(outDir, 'notebook-dark.png');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForSelector('html[data-theme=dark]');
    await page.click('[data-menu=view]');
    await page.click('.menu-item[data-command=toggle-toc]');
    await page.locator('nav.toc .toc-item').first().waitFor();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: dark });
    await page.emulateMedia({ colorScheme: 'light' });

    const widgets = await widgetsScreenshot(page, server.url, outDir);
    return [dashboard, notebook, dark, widgets];
  } finally {
    await browser.close();
    await server.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = path.resolve(process.argv[2] ?? DOCS_DIR);
  for (const file of await writeScreenshots(outDir)) console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
