// needs: browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v4CodeCell } from '../../../testing/notebooks.js';
import { TOKEN } from '../../../testing/token.js';
import { type Harness, notebookJson, startHarness } from './harness.js';

/**
 * The notebook page when another program changes the open file (docs/collaboration.md, "Changes
 * on disk"): the server merges the change; where it replaced text typed in the page and not yet
 * saved, the cell shows a "changed on disk" notice with that text and a button that puts it back.
 */

const code = (id: string, source: string) => v4CodeCell(source, { id });

const cellsOf = (page: Page) => page.locator('.notebook-cells > .cell');
const sourceOf = (page: Page, index: number) =>
  cellsOf(page)
    .nth(index)
    .evaluate((c) => {
      const lines = c.querySelectorAll('.cm-content > .cm-line');
      if (lines.length === 0) return c.querySelector('.source-static')?.textContent ?? '';
      return [...lines].map((line) => (line.textContent ?? '').replace(/\u2060/g, '')).join('\n');
    });

describe('a notebook changed on disk while open', () => {
  let h: Harness;

  beforeAll(async () => {
    // The server would not save by itself for a long while: the page's typing is unsaved when the file changes.
    h = await startHarness({ collaborationTuning: { saveDelayMs: 600_000 } });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  it('merges the file into the page; a cell whose typing the file replaced offers it back', async () => {
    const file = path.join(h.root, 'disk.ipynb');
    await fs.writeFile(file, notebookJson([code('a', 'first = 1'), code('b', 'second = 2')]));
    const page = await h.newPage();
    await page.goto(`${h.url}notebooks/disk.ipynb`);
    if (page.url().includes('/login')) {
      await page.fill('input[name=password]', TOKEN);
      await page.click('button[type=submit]');
    }
    await page.waitForSelector('body[data-collaboration=on]');
    const second = cellsOf(page).nth(1);
    await second.locator('.input-area').click();
    await second.locator('.cm-content').waitFor();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('\nmine = "typed"');
    await expect.poll(() => sourceOf(page, 1)).toBe('second = 2\nmine = "typed"');
    // Another program rewrites the file (an editor's atomic save), changing both cells.
    const outside = notebookJson([code('a', 'first = "outside"'), code('b', 'second = "outside"')]);
    await fs.writeFile(`${file}.tmp`, outside);
    await fs.rename(`${file}.tmp`, file);
    await expect.poll(() => sourceOf(page, 0)).toBe('first = "outside"');
    await expect.poll(() => sourceOf(page, 1)).toBe('second = "outside"');
    const notice = second.locator('.disk-notice');
    await notice.waitFor();
    expect(await notice.locator('.disk-notice-text').textContent()).toContain('Changed on disk');
    expect(await notice.locator('.disk-notice-replaced').textContent()).toBe('second = 2\nmine = "typed"');
    expect(await cellsOf(page).nth(0).locator('.disk-notice').count()).toBe(0);
    // Put back: the typed text returns, the notice goes, and the page's save writes it to the file.
    await notice.getByRole('button', { name: 'Put back' }).click();
    await expect.poll(() => sourceOf(page, 1)).toBe('second = 2\nmine = "typed"');
    expect(await second.locator('.disk-notice').count()).toBe(0);
    await expect
      .poll(
        async () =>
          JSON.parse(await fs.readFile(file, 'utf8')).cells.map((c: { source: string[] }) => c.source.join('')),
        { timeout: 20_000 },
      )
      .toEqual(['first = "outside"', 'second = 2\nmine = "typed"']);
    expect(h.pageErrors).toEqual([]);
  }, 180_000);
});
