// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, login, notebookJson, recordSockets, startHarness } from './harness.js';

// The notebook page when its kernel goes away: shut down from elsewhere (a dead kernel the page
// can replace), or died and restarted by the server (said, as Notebook 6.4 does); and its header
// staying on screen over a long notebook.

let h: Harness;
let page: Page;
const NB = 'Long.ipynb';
const KERNELSPEC = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };

const cells = () => page.locator('.notebook-cells > .cell');
const sockets = () => page.evaluate(() => (window as unknown as { __sockets: WebSocket[] }).__sockets.length);

async function run(cell: Locator, code: string): Promise<void> {
  await cell.locator('.input-area').click();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(code);
  await page.keyboard.press('Control+Enter');
}

async function waitDone(cell: Locator, timeout = 60_000): Promise<void> {
  await expect.poll(() => cell.locator('.input-prompt').textContent(), { timeout }).toMatch(/^In \[\d+\]:$/);
}

async function session(): Promise<{ id: string; path: string; kernel: { id: string; name: string } }> {
  const response = await h.server.fetch('api/sessions');
  const list = (await response.json()) as { id: string; path: string; kernel: { id: string; name: string } }[];
  const found = list.find((s) => s.path === NB);
  if (!found) throw new Error(`no session for ${NB}: ${JSON.stringify(list)}`);
  return found;
}

beforeAll(async () => {
  h = await startHarness();
  await recordSockets(h.context);
  // Long enough to scroll several screens.
  const source = Array.from({ length: 60 }, (_, i) => ({
    cell_type: 'code',
    source: `# cell ${i}\nvalue_${i} = ${i}\nvalue_${i} * 2\n`,
    outputs: [],
    execution_count: null,
    metadata: {},
  }));
  await fs.writeFile(path.join(h.root, NB), notebookJson(source, KERNELSPEC));
  page = await h.newPage();
  await login(page, h.url, `notebooks/${NB}`);
  await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('notebook page: header and kernel recovery (real python3 kernel)', () => {
  it('keeps title, menus, toolbar and kernel status on screen at the end of a long notebook', async () => {
    await cells().last().scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const scrolled = await page.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(2000);
    for (const selector of [
      '.notebook-name',
      '.menubar [data-menu=kernel]',
      '.notebook-toolbar .tool',
      '.kernel-status',
    ]) {
      const onScreen = await page
        .locator(selector)
        .first()
        .evaluate((el) => {
          const r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0 && !!hit && el.contains(hit);
        });
      expect(onScreen, selector).toBe(true);
    }
    // Still usable there: the Kernel menu opens over the cells.
    await page.click('[data-menu=kernel]');
    expect(await page.locator('.menu-item[data-command=restart]').isVisible()).toBe(true);
    await page.keyboard.press('Escape');
    await page.mouse.click(5, 840);
    await page.evaluate(() => window.scrollTo(0, 0));
  }, 180_000);

  it('says so when the kernel dies and the server restarts it', async () => {
    const first = cells().first();
    await run(first, 'kept = 1');
    await waitDone(first);
    const before = (await session()).kernel.id;
    await run(first, 'import os\nos._exit(1)');
    const banner = page.locator('.kernel-banner');
    await expect
      .poll(() => banner.textContent(), { timeout: 30_000 })
      .toContain('The kernel appears to have died. It will restart automatically.');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
    // The cell that killed it is not left running; the kernel is the same one, restarted.
    await waitDone(first);
    expect((await session()).kernel.id).toBe(before);
    await run(first, "'kept' in dir()");
    await waitDone(first);
    expect(await first.locator('.output-execute_result').textContent()).toMatch(/False$/);
    // A later run clears the notice.
    await expect.poll(() => banner.isVisible()).toBe(false);
  }, 180_000);

  it('shows "Dead kernel" after a shutdown from elsewhere, stops reconnecting, and starts a new one', async () => {
    const first = cells().first();
    await run(first, 'import time\ntime.sleep(600)');
    await expect.poll(() => first.locator('.input-prompt').textContent()).toBe('In [*]:');
    const old = await session();
    const deleted = await h.server.fetch(`api/kernels/${old.kernel.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    await page.waitForSelector('.kernel-status[data-status=dead]', { timeout: 30_000 });
    expect(await page.locator('.kernel-status').textContent()).toBe('Dead kernel');
    // No cell stays marked running.
    await expect.poll(() => first.locator('.input-prompt').textContent()).not.toBe('In [*]:');
    expect(await page.locator('.cell.running').count()).toBe(0);
    // Nothing keeps knocking at a socket that answers 404.
    const socketsAtDeath = await sockets();
    await page.waitForTimeout(4000);
    expect((await sockets()) - socketsAtDeath).toBeLessThanOrEqual(1);
    expect(await page.locator('.kernel-status').getAttribute('data-status')).toBe('dead');

    await page.locator('.kernel-banner button', { hasText: 'Start a new kernel' }).click();
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
    const fresh = await session();
    expect(fresh.kernel.id).not.toBe(old.kernel.id);
    expect(fresh.kernel.name).toBe('python3');
    await run(first, 'print(6 * 7)');
    await waitDone(first);
    expect(await first.locator('.output-stream').textContent()).toBe('42\n');
  }, 180_000);

  it('Kernel > Restart on a dead kernel starts a new one (shut down as the Running tab does)', async () => {
    const old = await session();
    expect((await h.server.fetch(`api/sessions/${old.id}`, { method: 'DELETE' })).status).toBe(204);
    await page.waitForSelector('.kernel-status[data-status=dead]', { timeout: 30_000 });
    await page.click('[data-menu=kernel]');
    await page.click('.menu-item[data-command=restart]');
    const confirm = page.locator('dialog.modal button:has-text("Restart")');
    if (await confirm.isVisible().catch(() => false)) await confirm.click();
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
    const fresh = await session();
    expect(fresh.kernel.id).not.toBe(old.kernel.id);
    const first = cells().first();
    await run(first, 'print("alive")');
    await waitDone(first);
    expect(await first.locator('.output-stream').textContent()).toBe('alive\n');
    expect(await page.locator('.kernel-banner').isVisible()).toBe(false);
  }, 180_000);
});
