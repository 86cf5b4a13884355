// needs: kernel, browser
/**
 * The browser's main path under the root, under an escaped base URL (what JupyterHub makes of
 * an e-mail user name) and mounted in a host app: the printed token URL, the dashboard, a folder, a notebook, a cell run on
 * the built-in JavaScript kernel, a save, and the output in the file on disk.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { BASE_URL_MATRIX, startServer, type TestServer } from '../../../testing/server.js';
import { notebookJson } from './harness.js';

const ENTRIES = BASE_URL_MATRIX.filter((entry) => entry.baseUrl !== '/user/a%40b/');

describe.each(ENTRIES)('in Chromium, $name', (entry) => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const failedRequests: string[] = [];

  beforeAll(async () => {
    s = await startServer({ ...entry, defaultKernelName: 'javascript' });
    await fs.mkdir(path.join(s.root, 'work'));
    const kernelspec = { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' };
    await fs.writeFile(
      path.join(s.root, 'work', 'Demo.ipynb'),
      notebookJson([{ cell_type: 'code', id: 'c1', metadata: {}, source: '', execution_count: null, outputs: [] }], {
        kernelspec,
      }),
    );
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) failedRequests.push(`${response.status()} ${response.url()}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('opens the printed token URL, runs a cell in a notebook in a folder, saves its output, links back', async () => {
    await page.goto(`${s.url}?token=${s.token}`);
    await page.waitForURL(`${s.url}tree`);
    await page.waitForSelector('body[data-ready]');
    const cookies = await page.context().cookies();
    expect(cookies.map((c) => [c.name.replace(/-.*/, ''), c.path]).sort()).toEqual([
      ['_xsrf', s.prefix],
      ['username', s.prefix],
    ]);

    await page.locator('.vlist .row[data-name="work"] .entry-link').click();
    await page.waitForURL(`${s.url}tree/work`);
    await page.locator('.vlist .row[data-name="Demo.ipynb"] .entry-link').click();
    await page.waitForURL(`${s.url}notebooks/work/Demo.ipynb`);
    await page.waitForSelector('body[data-ready]');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });

    const cell = page.locator('.notebook-cells > .cell').first();
    await cell.locator('.input-area').click();
    await page.keyboard.insertText('const where = "base-url"; [where, 6 * 7]');
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => cell.locator('.output-execute_result').textContent(), { timeout: 30_000 }).toContain('42');

    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    const saved = JSON.parse(await fs.readFile(path.join(s.root, 'work', 'Demo.ipynb'), 'utf8'));
    const outputs = saved.cells[0].outputs as { output_type: string; data?: Record<string, string | string[]> }[];
    const text = outputs.find((o) => o.output_type === 'execute_result')?.data?.['text/plain'];
    expect([text ?? []].flat().join('')).toBe("[ 'base-url', 42 ]");

    // Back to the folder through the page's own link, then the running session links to the page.
    await page.click('.brand');
    await page.waitForURL(`${s.url}tree/work`);
    await page.waitForSelector('body[data-ready]');
    await page.click('[data-tab=running]');
    const session = page.locator('.row[data-session] a').first();
    expect(await session.getAttribute('href')).toBe(`${s.prefix}notebooks/work/Demo.ipynb`);
    expect(pageErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
  });
});
