/**
 * The dashboard's first page of a folder is requested by the HTML itself (`<link rel="preload"
 * as="fetch">`, no inline script: the page CSP is unchanged), before the dashboard's code has
 * loaded, and the page then takes its rows from that very request — at the root, under an escaped
 * base URL and mounted in a host app, for a folder whose name needs escaping.
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
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('requests the first page from the HTML and shows its rows from that one request', async () => {
    const folderUrl = `${s.url}tree/${encodeURIComponent(FOLDER)}`;
    await page.goto(`${folderUrl}?token=${s.token}`);
    await page.locator('.vlist .row[data-name="a.ipynb"]').waitFor({ timeout: 60_000 });
    await page.locator('.vlist .row[data-name="f0000.txt"]').waitFor();
    const firstPageUrl = `${s.url}api/contents/${encodeURIComponent(FOLDER)}?content=1&offset=0&limit=500`;
    expect(await page.locator('link[rel=preload][as=fetch]').evaluate((l: HTMLLinkElement) => l.href)).toBe(
      firstPageUrl,
    );
    // then the whole folder, behind the first rows
    await page.waitForFunction((n) => (document.querySelector('.vlist')?.scrollHeight ?? 0) >= n * 30, COUNT);
    expect(await page.locator('.list-status').textContent()).toBe(`${COUNT + 1} items`);
    const timing = await page.evaluate(() =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({
        name: e.name,
        start: e.startTime,
      })),
    );
    // one request for the first page (the page's own fetch was answered by the preload) ...
    const firstPages = timing.filter((e) => e.name === firstPageUrl);
    expect(firstPages).toHaveLength(1);
    // ... issued before the dashboard's script was even requested
    const script = timing.find((e) => /\/static\/dashboard-[^/]+\.js$/.test(e.name));
    expect(script).toBeDefined();
    expect(firstPages[0]?.start).toBeLessThanOrEqual(script?.start ?? 0);
    expect(timing.filter((e) => e.name.includes('/static/') && e.name.endsWith('.js'))).toHaveLength(1);
    expect(pageErrors).toEqual([]);
    expect(consoleMessages.filter((m) => /Content Security Policy|preload/i.test(m))).toEqual([]);
  }, 120_000);

  it('lists the next folder it goes to with a first page of its own', async () => {
    await page.locator('.breadcrumbs a, .breadcrumbs button').first().click();
    await page.locator(`.vlist .row[data-name="${FOLDER}"]`).waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(`${s.url}tree`);
    await page.locator(`.vlist .row[data-name="${FOLDER}"] .entry-link`).click();
    await page.locator('.vlist .row[data-name="f0000.txt"]').waitFor({ timeout: 30_000 });
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
