// needs: browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN } from '../../../testing/token.js';
import { type Harness, login, notebookJson, startHarness } from './harness.js';

const EVIL = '<img src=x onerror=alert(1)>.txt';
let h: Harness;
let page: Page;

const row = (name: string) => page.locator(`.vlist .row[data-name="${name.replace(/"/g, '\\"')}"]`);

async function answerPrompt(value: string): Promise<void> {
  const input = page.locator('dialog.modal input.modal-input');
  await input.waitFor();
  await input.fill(value);
  await page.locator('dialog.modal button.btn-primary').click();
  await page.locator('dialog.modal').waitFor({ state: 'detached' });
}

async function select(...names: string[]): Promise<void> {
  for (const [i, name] of names.entries()) {
    await row(name)
      .locator('.col-size')
      .click({ modifiers: i === 0 ? [] : ['Control'] });
  }
}

beforeAll(async () => {
  h = await startHarness();
  await fs.writeFile(path.join(h.root, EVIL), 'xss canary');
  await fs.writeFile(path.join(h.root, 'analysis.ipynb'), notebookJson([]));
  await fs.writeFile(path.join(h.root, 'old.txt'), 'old');
  const past = new Date('2020-01-01T00:00:00Z');
  await fs.utimes(path.join(h.root, 'old.txt'), past, past);
  page = await h.newPage();
});

afterAll(async () => {
  await h?.close();
});

describe('dashboard in Chromium', () => {
  it('logs in with the token through the login page', async () => {
    await login(page, h.url);
    expect(page.url()).toBe(`${h.url}tree`);
    await expect(row('analysis.ipynb').isVisible()).resolves.toBe(true);
  });

  it('shows hostile file names as text, never as markup', async () => {
    await row(EVIL).waitFor();
    expect(await row(EVIL).locator('.entry-link').textContent()).toBe(EVIL);
    expect(await page.locator('.vlist img').count()).toBe(0);
    expect(h.dialogs).toEqual([]);
  });

  it('sorts by name and by last modified', async () => {
    const names = () => page.locator('.vlist .row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));
    expect(await names()).toEqual(
      [EVIL, 'analysis.ipynb', 'old.txt'].sort((a, b) => {
        const nb = (n: string) => (n.endsWith('.ipynb') ? 0 : 1);
        return nb(a) - nb(b) || a.localeCompare(b, undefined, { sensitivity: 'base' });
      }),
    );
    // Newest first on the first click, oldest first on the second.
    await page.click('.list-header [data-sort=last_modified]');
    expect((await names()).at(-1)).toBe('old.txt');
    await page.click('.list-header [data-sort=last_modified]');
    expect((await names())[0]).toBe('old.txt');
    await page.click('.list-header [data-sort=name]');
  });

  it('makes a folder, names it, walks into it and back with breadcrumbs', async () => {
    await page.click('text=New ▾');
    await page.click('.menu-item:has-text("Folder")');
    await answerPrompt('Project');
    await row('Project').waitFor();
    expect((await fs.stat(path.join(h.root, 'Project'))).isDirectory()).toBe(true);
    await row('Project').locator('.entry-link').click();
    await page.waitForURL(`${h.url}tree/Project`);
    await page.locator('.breadcrumbs .crumb:has-text("Project")').waitFor();
    await row('..').waitFor();
    await page.click('.breadcrumbs .crumb:has-text("Home")');
    await page.waitForURL(`${h.url}tree`);
    await row('Project').waitFor();
  });

  it('uploads with the button, a big file in chunks, and by drag and drop', async () => {
    const big = Buffer.alloc(2_600_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    const puts: number[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().includes('/api/contents/big.bin')) puts.push(1);
    });
    await page.setInputFiles('input[data-testid=upload-input]', [
      { name: 'small.txt', mimeType: 'text/plain', buffer: Buffer.from('small file\n') },
      { name: 'big.bin', mimeType: 'application/octet-stream', buffer: big },
    ]);
    await row('big.bin').waitFor();
    expect(await fs.readFile(path.join(h.root, 'small.txt'), 'utf8')).toBe('small file\n');
    expect((await fs.readFile(path.join(h.root, 'big.bin'))).equals(big)).toBe(true);
    expect(puts.length).toBe(3); // 1 MiB chunks: first, middle, last

    const transfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['dropped!'], 'dropped.txt', { type: 'text/plain' }));
      return dt;
    });
    await page.dispatchEvent('.files-view', 'dragover', { dataTransfer: transfer });
    expect(await page.locator('.files-view.drop-target').count()).toBe(1);
    await page.dispatchEvent('.files-view', 'drop', { dataTransfer: transfer });
    await row('dropped.txt').waitFor();
    expect(await fs.readFile(path.join(h.root, 'dropped.txt'), 'utf8')).toBe('dropped!');
  });

  it('renames, duplicates, moves and downloads', async () => {
    await select('small.txt');
    await page.click('[data-action=rename]');
    await answerPrompt('renamed.txt');
    await row('renamed.txt').waitFor();
    await expect(fs.readFile(path.join(h.root, 'renamed.txt'), 'utf8')).resolves.toBe('small file\n');

    await select('analysis.ipynb');
    await page.click('[data-action=duplicate]');
    await row('analysis-Copy1.ipynb').waitFor();

    await select('renamed.txt');
    const download = page.waitForEvent('download');
    await page.click('[data-action=download]');
    const file = await download;
    expect(file.suggestedFilename()).toBe('renamed.txt');
    expect(await fs.readFile((await file.path()) as string, 'utf8')).toBe('small file\n');

    await select('renamed.txt');
    await page.click('[data-action=move]');
    await answerPrompt('Project');
    await row('renamed.txt').waitFor({ state: 'detached' });
    await expect(fs.readFile(path.join(h.root, 'Project', 'renamed.txt'), 'utf8')).resolves.toBe('small file\n');
  });

  it('deletes only after confirmation, several at once with multi-select', async () => {
    await select('dropped.txt', 'analysis-Copy1.ipynb');
    expect(await page.locator('.selection-count').textContent()).toBe('2 selected');
    await page.click('[data-action=delete]');
    await page.locator('dialog.modal').waitFor();
    await page.click('dialog.modal button:has-text("Cancel")');
    await expect(fs.stat(path.join(h.root, 'dropped.txt'))).resolves.toBeTruthy();
    await page.click('[data-action=delete]');
    await page.click('dialog.modal button:has-text("Delete")');
    await row('dropped.txt').waitFor({ state: 'detached' });
    await expect(fs.stat(path.join(h.root, 'dropped.txt'))).rejects.toThrow();
    await expect(fs.stat(path.join(h.root, 'analysis-Copy1.ipynb'))).rejects.toThrow();
  });

  it('shows the Clusters tab wired to /api/clusters, including its error message', async () => {
    const api = await page.request.get(`${h.url}api/clusters`, { headers: { Authorization: `token ${TOKEN}` } });
    await page.click('[data-tab=clusters]');
    if (api.ok()) {
      const clusters = (await api.json()) as { profile: string }[];
      for (const c of clusters) await page.locator(`.clusters-view .row[data-profile="${c.profile}"]`).waitFor();
      if (clusters.length === 0) await page.locator('.clusters-view .empty').waitFor();
    } else {
      const message = ((await api.json()) as { message: string }).message;
      const shown = await page.locator('.clusters-error').textContent();
      expect(shown).toContain(message);
    }
    await page.click('[data-tab=files]');
  });

  it('stays responsive with 10,000 entries (virtualized list)', async () => {
    const big = path.join(h.root, 'many');
    await fs.mkdir(big);
    const names = Array.from({ length: 10_000 }, (_, i) => `file-${String(i).padStart(5, '0')}.txt`);
    for (let i = 0; i < names.length; i += 500) {
      await Promise.all(names.slice(i, i + 500).map((n) => fs.writeFile(path.join(big, n), '')));
    }
    const started = Date.now();
    await page.goto(`${h.url}tree/many`);
    await page.waitForSelector('body[data-ready]');
    await row('file-00000.txt').waitFor();
    const elapsed = Date.now() - started;
    expect(await page.locator('.list-status').textContent()).toBe('10000 items');
    expect(await page.locator('.vlist .row').count()).toBeLessThan(120);
    // Scrolling to the end shows the last entry without freezing the page.
    const scrollStart = Date.now();
    await page.locator('.vlist').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await row('file-09999.txt').waitFor();
    expect(Date.now() - scrollStart).toBeLessThan(2000);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('logs out and needs the token again', async () => {
    await page.click('a:has-text("Log out")');
    await page.waitForURL(/logout|login/);
    await page.goto(`${h.url}tree`);
    await page.waitForURL(/\/login\?next=/);
    expect(h.pageErrors).toEqual([]);
    expect(h.dialogs).toEqual([]);
  });
});
