/**
 * docs/screenshots/widgets.png for `pnpm screenshots` (scripts/screenshots.ts): Jupyter widgets
 * on the built-in JavaScript kernel's `widgets` module, a slider linked to a progress bar and an
 * Output the kernel fills from the slider's observer.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** In a folder, so the dashboard screenshot stays as it was. */
export const WIDGETS_NOTEBOOK = 'Project/Widgets.ipynb';

const SOURCES = [
  [
    'const size = new widgets.IntSlider({ value: 7, max: 10, description: "Size" });',
    'const done = new widgets.IntProgress({ max: 10, description: "Done" });',
    'widgets.link([size, "value"], [done, "value"]);',
    'new widgets.VBox({ children: [size, done] })',
  ].join('\n'),
  [
    'const out = new widgets.Output();',
    'size.observe(({ new: n }) => { out.clearOutput(); out.appendStdout(n + " squared is " + n * n + "\\n"); }, "value");',
    'out',
  ].join('\n'),
];

export async function writeWidgetsNotebook(root: string): Promise<void> {
  const cells = SOURCES.map((source) => ({
    cell_type: 'code',
    metadata: {},
    execution_count: null,
    outputs: [],
    source,
  }));
  const metadata = { kernelspec: { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' } };
  await fs.writeFile(
    path.join(root, WIDGETS_NOTEBOOK),
    JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata, cells }),
  );
}

/** Opens the notebook, runs it, moves the slider and writes `widgets.png` into `outDir`. */
export async function widgetsScreenshot(page: Page, url: string, outDir: string): Promise<string> {
  await page.goto(`${url}notebooks/${WIDGETS_NOTEBOOK.split('/').map(encodeURIComponent).join('/')}`);
  await page.waitForSelector('body[data-ready]');
  await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
  const cells = page.locator('.notebook-cells > .cell.code-cell');
  for (let i = 0; i < SOURCES.length; i++) {
    await cells.nth(i).locator('.input-area').click();
    await page.keyboard.press('Shift+Enter');
    await cells.nth(i).locator('.widget-area .jupyter-widgets').first().waitFor({ state: 'attached', timeout: 60_000 });
  }
  // Moved by hand, as a person would: the kernel hears it and fills the Output.
  const handle = page.locator('.widget-slider .noUi-handle');
  await handle.focus();
  await page.keyboard.press('ArrowRight');
  await page.locator('.widget-output .output-stream', { hasText: '8 squared is 64' }).waitFor({ timeout: 30_000 });
  await page.keyboard.press('Escape');
  await page.setViewportSize({ width: 1280, height: 520 });
  await page.evaluate(() => {
    document.getElementById('toasts')?.remove();
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  const file = path.join(outDir, 'widgets.png');
  await page.screenshot({ path: file });
  return file;
}
