// needs: browser
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { v3CodeCell, v3Notebook, v3Pyout } from '../../../testing/notebooks.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

const OLD_NOTEBOOK = v3Notebook('OldOne', [
  v3CodeCell('print("hello old")\n6*7', 3, [
    { output_type: 'stream', stream: 'stdout', text: 'hello old\n' },
    v3Pyout(3, '42'),
  ]),
]);

describe('notebooks cross generations in the real notebook page (headless Chromium, python3 kernel)', () => {
  let browser: Browser;
  let page: Page;
  let s: TestServer;

  beforeAll(async () => {
    s = await startServer({ kernelSpecDirs: ['/usr/share/jupyter/kernels'] });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${s.origin}/tree?token=${TOKEN}`);
    await page.waitForSelector('body[data-ready]');
  });
  afterAll(async () => {
    await browser?.close();
    await s.close();
  });

  it('a notebook an old client saved opens at /<id> in the current page with its outputs', async () => {
    const id = (await (
      await s.fetch('/notebooks', { method: 'POST', body: JSON.stringify(OLD_NOTEBOOK) })
    ).json()) as string;
    await page.goto(`${s.origin}/${id}`);
    await page.waitForURL(/\/notebooks\/OldOne\.ipynb$/);
    await page.waitForSelector('body[data-ready]');
    const cell = page.locator('.notebook-cells > .cell').first();
    await cell.locator('.output-stream').waitFor();
    expect(await cell.locator('.output-stream').textContent()).toBe('hello old\n');
    expect(await cell.locator('.output-execute_result').textContent()).toBe('Out[3]:42');
    expect(await cell.locator('.input-prompt').textContent()).toBe('In [3]:');
  });

  it('outputs made in the current page reach an old client as v3 pyout', async () => {
    const id = (await (await s.fetch('/notebooks', { method: 'POST' })).json()) as string;
    await page.goto(`${s.origin}/${id}`);
    await page.waitForURL(/\/notebooks\/Untitled0\.ipynb$/);
    await page.waitForSelector('body[data-ready]');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
    const cell = page.locator('.notebook-cells > .cell').first();
    await cell.locator('.input-area').click();
    await page.keyboard.insertText('6*7');
    await page.keyboard.press('Shift+Enter');
    await cell.locator('.output-execute_result').waitFor({ timeout: 30_000 });
    await page.keyboard.press('Control+s');
    await expect
      .poll(
        async () => {
          const nb = (await (await s.fetch(`/notebooks/${id}`)).json()) as {
            worksheets: { cells: { outputs?: Record<string, unknown>[] }[] }[];
          };
          return nb.worksheets[0]?.cells[0]?.outputs?.[0];
        },
        { timeout: 15_000 },
      )
      .toMatchObject({ output_type: 'pyout', text: '42' });
    // The old API sees the page's kernel as this notebook's kernel.
    const listed = (await (await s.fetch('/notebooks')).json()) as { notebook_id: string; kernel_id: string | null }[];
    expect(listed.find((e) => e.notebook_id === id)?.kernel_id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
