// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, login, notebookJson, startHarness } from './harness.js';

/** A 1x1 GIF. */
const GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

let h: Harness;
let page: Page;

/** A notebook from elsewhere: HTML with a script, a JavaScript output, markdown with a script and an onerror. */
const HOSTILE = notebookJson(
  [
    {
      cell_type: 'markdown',
      metadata: {},
      source: 'Hello <img src=x onerror="window.__pwned = 1"> <script>window.__pwned = 2</script>',
    },
    {
      cell_type: 'code',
      metadata: {},
      execution_count: 1,
      source: 'show()',
      outputs: [
        {
          output_type: 'display_data',
          metadata: {},
          data: {
            'text/html':
              '<b class="kept">kept</b><script>window.__pwned = 3</script><a href="javascript:alert(1)">x</a>',
            'text/plain': 'plain',
          },
        },
        {
          output_type: 'display_data',
          metadata: {},
          data: { 'application/javascript': 'window.__pwned = 4; element.textContent = "ran";', 'text/plain': 'js' },
        },
      ],
    },
    {
      cell_type: 'code',
      metadata: {},
      execution_count: 2,
      source: 'more()',
      outputs: [
        {
          output_type: 'display_data',
          metadata: {},
          data: {
            'image/svg+xml':
              '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20" onload="window.__pwned = 5"><circle r="9" cx="10" cy="10"/></svg>',
          },
        },
        { output_type: 'display_data', metadata: {}, data: { 'image/gif': GIF } },
        { output_type: 'display_data', metadata: {}, data: { 'application/json': { answer: 42 } } },
        { output_type: 'display_data', metadata: {}, data: { 'text/markdown': '**md** output' } },
        { output_type: 'execute_result', execution_count: 2, metadata: {}, data: { 'text/latex': '$\\alpha^2$' } },
      ],
    },
  ],
  { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
);

beforeAll(async () => {
  h = await startHarness();
  await fs.writeFile(path.join(h.root, 'hostile.ipynb'), HOSTILE);
  page = await h.newPage();
});

afterAll(async () => {
  await h?.close();
});

describe('untrusted notebooks', () => {
  it('sanitizes every output of a notebook the server did not sign', async () => {
    await login(page, h.url, 'notebooks/hostile.ipynb');
    await page.locator('.trust-state[data-trusted=false]').waitFor();
    expect(await page.locator('.output-html b.kept').textContent()).toBe('kept');
    expect(await page.locator('.notebook-cells script').count()).toBe(0);
    expect(await page.locator('.notebook-cells [onerror]').count()).toBe(0);
    expect(await page.locator('.notebook-cells a[href^="javascript"]').count()).toBe(0);
    expect(await page.locator('iframe.output-frame').count()).toBe(0);
    // The JavaScript output falls back to its text/plain form.
    expect(await page.locator('.output-display_data', { hasText: /^js$/ }).count()).toBe(1);
    // SVG from an untrusted notebook is shown as an image (no script can run in an <img>).
    expect(await page.locator('[data-mime-type="image/svg+xml"] img').getAttribute('src')).toMatch(
      /^data:image\/svg\+xml;base64,/,
    );
    expect(await page.locator('.notebook-cells svg[onload]').count()).toBe(0);
    expect(await page.locator('[data-mime-type="image/gif"] img').getAttribute('src')).toBe(
      `data:image/gif;base64,${GIF}`,
    );
    expect(await page.locator('[data-mime-type="application/json"]').textContent()).toContain('"answer": 42');
    expect(await page.locator('[data-mime-type="text/markdown"] strong').textContent()).toBe('md');
    expect(await page.locator('[data-mime-type="text/latex"] .katex').count()).toBe(1);
    expect(await page.locator('.output-execute_result .output-prompt').textContent()).toBe('Out[2]:');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(h.dialogs).toEqual([]);
  });

  it('after "Trust notebook", runs its scripts, but only inside sandboxed frames', async () => {
    await page.click('.trust-state');
    await page.click('dialog.modal button:has-text("Trust")');
    await page.locator('.trust-state[data-trusted=true]').waitFor();
    await expect.poll(() => page.locator('iframe.output-frame').count()).toBe(2);
    const frames = () => page.frames().filter((f) => f.url().endsWith('/output-frame'));
    const shown = async () =>
      (
        await Promise.all(
          frames().map((f) =>
            f.locator('#output').evaluate((el) =>
              [...el.childNodes]
                .filter((n) => n.nodeName !== 'SCRIPT')
                .map((n) => n.textContent)
                .join(''),
            ),
          ),
        )
      ).sort();
    await expect.poll(shown).toEqual(['keptx', 'ran']);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // Reopened, the notebook is still trusted: the signature is on the server.
    await page.reload();
    await page.locator('.trust-state[data-trusted=true]').waitFor();
    // Markdown never runs scripts, trusted or not.
    expect(await page.locator('.markdown-cell script, .markdown-cell [onerror]').count()).toBe(0);
  });
});

describe('markdown cell attachments', () => {
  it("shows a cell's attachment: images on the page and in the print view, refused links pointing at #", async () => {
    const source = '![dot](attachment:dot.gif) [bad](&#106;avascript:alert(1))';
    const cell = {
      cell_type: 'markdown',
      id: 'a1',
      metadata: {},
      source,
      attachments: { 'dot.gif': { 'image/gif': GIF } },
    };
    await fs.writeFile(path.join(h.root, 'attached.ipynb'), notebookJson([cell]));
    const fresh = await h.newPage();
    // The browser profile is shared: logged in already unless this test runs alone.
    await fresh.goto(`${h.url}notebooks/attached.ipynb`);
    if (fresh.url().includes('/login')) await login(fresh, h.url, 'notebooks/attached.ipynb');
    await fresh.waitForSelector('body[data-ready]');
    const img = fresh.locator('.markdown-cell.rendered img');
    expect(await img.getAttribute('src')).toBe(`data:image/gif;base64,${GIF}`);
    expect(await img.getAttribute('alt')).toBe('dot');
    expect(await fresh.locator('.markdown-cell.rendered a').getAttribute('href')).toBe('#');
    await fresh.goto(`${h.url}print/attached.ipynb`);
    expect(await fresh.locator('.print-notebook .markdown-cell img').getAttribute('src')).toBe(
      `data:image/gif;base64,${GIF}`,
    );
    expect(await fresh.locator('.print-notebook .markdown-cell a').getAttribute('href')).toBe('#');
  });
});
