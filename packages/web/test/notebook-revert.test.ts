// needs: browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v4Notebook } from '../../../testing/notebooks.js';
import { type Harness, login, startHarness } from './harness.js';

let h: Harness;
let page: Page;

const KERNELSPEC = { kernelspec: { name: 'javascript', display_name: 'JavaScript', language: 'javascript' } };
const code = (id: string, source: string) => ({
  cell_type: 'code',
  id,
  metadata: {},
  source,
  outputs: [],
  execution_count: null,
});
const markdown = (id: string, source: string) => ({ cell_type: 'markdown', id, metadata: {}, source });

interface Checkpoint {
  id: string;
  last_modified: string;
}

let first: Checkpoint;
let second: Checkpoint;

beforeAll(async () => {
  h = await startHarness();
  const api = (p: string, init: RequestInit = {}) => h.server.fetch(`/api/contents/${p}`, init);
  const put = (cells: Record<string, unknown>[]) =>
    api('history.ipynb', {
      method: 'PUT',
      body: JSON.stringify({ type: 'notebook', content: v4Notebook(cells, KERNELSPEC) }),
    });
  // written by another program: no checkpoint yet
  await fs.writeFile(
    path.join(h.root, 'history.ipynb'),
    JSON.stringify(v4Notebook([code('a', 'x = 1'), markdown('b', '# Title')], KERNELSPEC)),
  );
  first = (await (await api('history.ipynb/checkpoints', { method: 'POST' })).json()) as Checkpoint;
  await put([code('a', 'x = 2'), markdown('b', '# Title'), code('c', 'y = 3')]);
  second = (await (await api('history.ipynb/checkpoints', { method: 'POST' })).json()) as Checkpoint;
  await put([code('a', 'x = 3'), markdown('b', '# Title'), code('d', 'z = 4')]);
  page = await h.newPage();
});

afterAll(async () => {
  await h?.close();
});

describe('File > Revert to checkpoint', () => {
  it('lists the checkpoints newest first and shows what restoring one does to the cells now', async () => {
    await login(page, h.url, 'notebooks/history.ipynb');
    await page.waitForSelector('body[data-ready]');
    await page.click('[data-menu=file]');
    await page.click('.menu-item[data-command=revert]');
    const dialog = page.locator('dialog.modal');
    await dialog.locator('.checkpoint-diff[data-state=ready]').waitFor();
    const items = dialog.locator('.checkpoint-item');
    expect(await items.evaluateAll((els) => els.map((e) => e.getAttribute('data-checkpoint')))).toEqual([
      second.id,
      first.id,
    ]);
    expect(await items.first().textContent()).toContain('(newest)');
    expect(await dialog.locator('input[type=radio]:checked').getAttribute('value')).toBe(second.id);
    // against the newest: x = 3 -> x = 2, z = 4 removed, y = 3 back, the title unchanged
    const summary = dialog.locator('.checkpoint-diff-summary');
    expect(await summary.textContent()).toBe(
      '1 cell changed, 1 cell added since (removed by the revert), 1 cell deleted since (brought back), 1 cell unchanged',
    );
    const changed = dialog.locator('.checkpoint-diff-cell[data-kind=changed]');
    expect(await changed.locator('h3').textContent()).toBe('Cell 1 (code): changed');
    expect(await changed.locator('.diff-del').textContent()).toBe('- x = 3\n');
    expect(await changed.locator('.diff-add').textContent()).toBe('+ x = 2\n');
    expect(await dialog.locator('.checkpoint-diff-cell[data-kind=removed] .diff-del').textContent()).toBe('- z = 4\n');
    expect(await dialog.locator('.checkpoint-diff-cell[data-kind=restored] .diff-add').textContent()).toBe('+ y = 3\n');
    // the older one: only the first cell differs, and z = 4 goes
    await dialog.locator(`.checkpoint-item[data-checkpoint="${first.id}"] input`).check();
    await expect
      .poll(() => summary.textContent())
      .toBe('1 cell changed, 1 cell added since (removed by the revert), 1 cell unchanged');
    expect(await dialog.locator('.checkpoint-diff-cell[data-kind=changed] .diff-add').textContent()).toBe('+ x = 1\n');
    // cancel changes nothing
    await dialog.locator('button:has-text("Cancel")').click();
    await expect.poll(() => page.locator('dialog.modal').count()).toBe(0);
    const untouched = JSON.parse(await fs.readFile(path.join(h.root, 'history.ipynb'), 'utf8'));
    expect(untouched.cells.map((c: { id: string }) => c.id)).toEqual(['a', 'b', 'd']);
  });

  it('restores the checkpoint picked, and the page follows', async () => {
    await page.click('[data-menu=file]');
    await page.click('.menu-item[data-command=revert]');
    const dialog = page.locator('dialog.modal');
    await dialog.locator('.checkpoint-diff[data-state=ready]').waitFor();
    await dialog.locator(`.checkpoint-item[data-checkpoint="${first.id}"] input`).check();
    await expect
      .poll(() => dialog.locator('.checkpoint-diff-cell[data-kind=changed] .diff-add').textContent())
      .toBe('+ x = 1\n');
    await dialog.locator('button:has-text("Revert")').click();
    const onDisk = async () =>
      JSON.parse(await fs.readFile(path.join(h.root, 'history.ipynb'), 'utf8')).cells.map((c: { id: string }) => c.id);
    await expect.poll(onDisk, { timeout: 10_000 }).toEqual(['a', 'b']);
    await expect.poll(() => page.locator('.cell').count(), { timeout: 15_000 }).toBe(2);
    expect(await page.locator('.notebook-cells').textContent()).toContain('x = 1');
    // restoring changed no checkpoint
    const listed = await (await h.server.fetch('/api/contents/history.ipynb/checkpoints')).json();
    expect(listed).toEqual([first, second]);
    expect(h.pageErrors).toEqual([]);
  });
});
