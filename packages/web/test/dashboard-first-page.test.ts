// needs: browser
/**
 * The dashboard's HTML carries the folder's top rows and its first page: the rows are there
 * without the page's code (JavaScript off), and the live dashboard takes the first page from the
 * HTML instead of asking for it — at the root, under an escaped base URL and mounted in a host
 * app, for a folder whose name needs escaping. Its in-page moves to other folders ask for their
 * first page.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { BASE_URL_MATRIX, startServer, type TestServer } from '../../../testing/server.js';

const ENTRIES = BASE_URL_MATRIX.filter((entry) => entry.baseUrl !== '/user/a%40b/');
const FOLDER = 'big folder #1';
const COUNT = 600;

describe.each(ENTRIES)('dashboard first page in Chromium, $name', (entry) => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const consoleMessages: string[] = [];
  /** Every contents request the (JavaScript-enabled) page makes. */
  const listings: string[] = [];

  beforeAll(async () => {
    s = await startServer(entry);
    const dir = path.join(s.root, FOLDER);
    await fs.mkdir(dir);
    await Promise.all(
      Array.from({ length: COUNT }, (_, i) => fs.writeFile(path.join(dir, `f${String(i).padStart(4, '0')}.txt`), '')),
    );
    await fs.writeFile(path.join(dir, 'a.ipynb'), '{}');
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => consoleMessages.push(message.text()));
    page.on('request', (request) => {
      if (request.url().includes('/api/contents')) listings.push(request.url());
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('shows the top rows with JavaScript off: links under the base URL, and the count', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const bare = await context.newPage();
      const requests: string[] = [];
      bare.on('request', (request) => requests.push(request.url()));
      await bare.goto(`${s.url}tree/${encodeURIComponent(FOLDER)}?token=${s.token}`);
      const folder = encodeURIComponent(FOLDER);
      expect(
        await bare.locator('.vlist .row .entry-link').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
      ).toEqual([
        `${s.prefix}tree`,
        `${s.prefix}notebooks/${folder}/a.ipynb`,
        ...Array.from({ length: 38 }, (_, i) => `${s.prefix}edit/${folder}/f${String(i).padStart(4, '0')}.txt`),
      ]);
      expect(await bare.locator('.list-status').textContent()).toBe(`${COUNT + 1} items`);
      expect(await bare.locator('.vlist .row').first().getAttribute('data-name')).toBe('..');
      expect(requests.filter((url) => url.includes('/api/'))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('goes live on the same rows without asking for the first page, then lists the folder whole', async () => {
    await page.goto(`${s.url}tree/${encodeURIComponent(FOLDER)}?token=${s.token}`);
    await page.locator('body[data-ready]').waitFor({ timeout: 60_000 });
    await page.locator('.vlist .row[data-name="a.ipynb"]').waitFor();
    // then the whole folder, behind the first rows
    await page.waitForFunction((n) => (document.querySelector('.vlist')?.scrollHeight ?? 0) >= n * 30, COUNT);
    expect(await page.locator('.list-status').textContent()).toBe(`${COUNT + 1} items`);
    expect(listings).toEqual([`${s.url}api/contents/${encodeURIComponent(FOLDER)}?content=1`]);
    // the live rows, not the server's: a click selects one
    await page.locator('.vlist .row[data-name="f0001.txt"] .col-date').click();
    await page.locator('.vlist .row.selected[data-name="f0001.txt"]').waitFor();
    expect(await page.locator('.selection-count').textContent()).toBe('1 selected');
    expect(pageErrors).toEqual([]);
    expect(consoleMessages.filter((m) => /Content Security Policy|error/i.test(m))).toEqual([]);
  }, 120_000);

  it('lists the next folder it goes to with a first page of its own', async () => {
    listings.length = 0;
    await page.locator('.breadcrumbs a, .breadcrumbs button').first().click();
    await page.locator(`.vlist .row[data-name="${FOLDER}"]`).waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(`${s.url}tree`);
    await page.locator(`.vlist .row[data-name="${FOLDER}"] .entry-link`).click();
    await page.locator('.vlist .row[data-name="f0000.txt"]').waitFor({ timeout: 30_000 });
    expect(listings.filter((url) => url.includes('limit='))).toEqual([
      `${s.url}api/contents?content=1&offset=0&limit=200`,
      `${s.url}api/contents/${encodeURIComponent(FOLDER)}?content=1&offset=0&limit=200`,
    ]);
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
