// needs: browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, login, startHarness } from './harness.js';

let h: Harness;
let page: Page;

beforeAll(async () => {
  h = await startHarness({ baseUrl: '/base/' });
  await fs.writeFile(path.join(h.root, 'script.py'), 'def greet(name):\n    return "hi " + name\n');
  page = await h.newPage();
});

afterAll(async () => {
  await h?.close();
});

describe('text editor page (under a base URL)', () => {
  it('opens a file from the dashboard in the editor, with syntax highlighting', async () => {
    await login(page, h.url);
    expect(page.url()).toBe(`${h.url}tree`);
    expect(h.url.endsWith('/base/')).toBe(true);
    await page.locator('.row[data-name="script.py"] .entry-link').click();
    await page.waitForURL(`${h.url}edit/script.py`);
    await page.waitForSelector('body[data-ready]');
    expect(await page.locator('.cm-content').textContent()).toContain('def greet(name):');
    expect(await page.locator('.cm-content .tok-keyword', { hasText: 'def' }).count()).toBe(1);
    expect(await page.locator('.cm-lineNumbers').count()).toBe(1);
  });

  it('edits and saves with Ctrl-S', async () => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('\nprint(greet("web"))\n');
    await page.locator('.save-state[data-state=dirty]').waitFor();
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    const saved = await fs.readFile(path.join(h.root, 'script.py'), 'utf8');
    expect(saved.startsWith('def greet(name):\n    return "hi " + name\n')).toBe(true);
    expect(saved).toContain('\nprint(greet("web"))\n');
  });

  it('asks before overwriting a file changed on disk', async () => {
    await fs.writeFile(path.join(h.root, 'script.py'), 'changed elsewhere\n');
    await page.keyboard.insertText('# mine\n');
    await page.keyboard.press('Control+s');
    await page.locator('dialog.modal', { hasText: 'changed on disk' }).waitFor();
    await page.click('dialog.modal button:has-text("Cancel")');
    expect(await fs.readFile(path.join(h.root, 'script.py'), 'utf8')).toBe('changed elsewhere\n');
    await page.keyboard.press('Control+s');
    await page.click('dialog.modal button:has-text("Overwrite")');
    await page.locator('.save-state[data-state=saved]').waitFor();
    expect(await fs.readFile(path.join(h.root, 'script.py'), 'utf8')).toContain('# mine');
  });

  it('creates a new text file from the dashboard and opens it in the editor', async () => {
    await page.goto(`${h.url}tree`);
    await page.waitForSelector('body[data-ready]');
    await page.click('text=New ▾');
    await page.click('.menu-item:has-text("Text File")');
    await page.waitForURL(`${h.url}edit/untitled.txt`);
    await page.waitForSelector('body[data-ready]');
    await page.locator('.cm-content').click();
    await page.keyboard.insertText('notes');
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    await expect(fs.readFile(path.join(h.root, 'untitled.txt'), 'utf8')).resolves.toBe('notes');
    await page.goto(`${h.url}edit/script.py`);
    await page.waitForSelector('body[data-ready]');
  });

  it('renames the file by clicking its name', async () => {
    await page.click('.notebook-name');
    await page.locator('dialog.modal input.modal-input').fill('renamed.py');
    await page.click('dialog.modal button.btn-primary');
    await page.waitForURL(`${h.url}edit/renamed.py`);
    await expect(fs.readFile(path.join(h.root, 'renamed.py'), 'utf8')).resolves.toContain('# mine');
    expect(h.pageErrors).toEqual([]);
  });
});
