// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v4CodeCell, v4MarkdownCell } from '../../../testing/notebooks.js';
import { type Harness, login, notebookJson, startHarness } from './harness.js';

/**
 * The text editor's search, language menu, line numbers and Ctrl-S; the dashboard's New menu;
 * the dark theme on every page (issue 19, items 6 and 9 and the theme), in Chromium against a
 * real server (and a real python3 kernel on the notebook page).
 */
let h: Harness;
let page: Page;

const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
/** Perceived brightness (0–255) of an `rgb(…)` colour. */
const brightness = (rgb: string) => {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b;
};

beforeAll(async () => {
  h = await startHarness({ terminalShell: '/bin/sh' });
  await fs.writeFile(path.join(h.root, 'script.py'), 'def greet(name):\n    return "hi " + name\n\ngreet("a")\n');
  await fs.writeFile(
    path.join(h.root, 'dark.ipynb'),
    notebookJson([v4MarkdownCell('# Title', { id: 'm' }), v4CodeCell('1 + 1', { id: 'c' })], {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
    }),
  );
  page = await h.newPage();
  await login(page, h.url);
});

afterAll(async () => {
  await h?.close();
});

describe('dashboard New menu (item 9)', () => {
  it('opens inside the page, every item readable', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.click('text=New ▾');
    const items = page.locator('.files-view .menu:not([hidden]) .menu-item');
    await items.first().waitFor();
    expect(await items.allTextContents()).toContain('Text File');
    for (const box of await items.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()))) {
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(1024);
    }
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 860 });
  });
});

describe('text editor page (items 6 and 9)', () => {
  it('searches with Ctrl-F and the Find button, and replaces', async () => {
    await page.goto(`${h.url}edit/script.py`);
    await page.waitForSelector('body[data-ready]');
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+f');
    const field = page.locator('.cm-search input[name=search]');
    await field.waitFor();
    await field.fill('greet');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('.cm-searchMatch').count()).toBe(2);
    await page.locator('.cm-search input[name=replace]').fill('welcome');
    await page.locator('.cm-search button[name=replaceAll]').click();
    await expect.poll(() => page.locator('.cm-content').textContent()).toContain('def welcome(name):');
    expect(await page.locator('.cm-content').textContent()).toContain('welcome("a")');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.cm-search').count()).toBe(0);
    await page.click('button.editor-find');
    await page.locator('.cm-search').waitFor();
  });

  it('switches the language and the line numbers; saves with Ctrl-S from anywhere on the page', async () => {
    const select = page.locator('select.editor-language');
    expect(await select.inputValue()).toBe('python');
    expect(await page.locator('.cm-content .tok-keyword').count()).toBeGreaterThan(0);
    await select.selectOption('text');
    await expect.poll(() => page.locator('.cm-content .tok-keyword').count()).toBe(0);
    await select.selectOption('python');
    await expect.poll(() => page.locator('.cm-content .tok-keyword').count()).toBeGreaterThan(0);
    expect(await page.locator('.cm-lineNumbers').count()).toBe(1);
    await page.locator('input.editor-line-numbers').uncheck();
    await expect.poll(() => page.locator('.cm-lineNumbers').count()).toBe(0);
    await page.locator('input.editor-line-numbers').check();
    await expect.poll(() => page.locator('.cm-lineNumbers').count()).toBe(1);
    // the focus is on the checkbox, not in the text
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    await expect.poll(() => fs.readFile(path.join(h.root, 'script.py'), 'utf8')).toContain('def welcome(name):');
  });
});

describe('dark theme', () => {
  it('follows prefers-color-scheme on every page', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    for (const route of ['tree', 'edit/script.py', 'notebooks/dark.ipynb', 'terminals/1']) {
      if (route.startsWith('terminals')) {
        await page.goto(`${h.url}tree`);
        await page.waitForSelector('body[data-ready]');
        await page.click('text=New ▾');
        await page.click('.menu-item:has-text("Terminal")');
        await page.waitForURL(`${h.url}terminals/1`);
      } else {
        await page.goto(`${h.url}${route}`);
      }
      await page.waitForSelector('.theme-toggle');
      expect(await theme(), route).toBe('dark');
      expect(brightness(await background()), route).toBeLessThan(40);
      expect(await page.locator('.theme-toggle').getAttribute('aria-pressed')).toBe('true');
    }
    const term = await page.evaluate(
      () =>
        (window as unknown as { nbserveTerminal: { options: { theme?: { background?: string } } } }).nbserveTerminal
          .options.theme?.background,
    );
    expect(term).toBe('#0d1117');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(theme).toBe('light');
    expect(brightness(await background())).toBeGreaterThan(200);
  });

  it('switches with the toggle, and keeps the choice over a reload and on other pages', async () => {
    await page.goto(`${h.url}notebooks/dark.ipynb`);
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
    await page.click('.theme-toggle');
    await expect.poll(theme).toBe('dark');
    const cellBackground = () =>
      page.locator('.code-cell .input-area').evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(brightness(await cellBackground())).toBeLessThan(60);
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    expect(await theme()).toBe('dark'); // the system says light; the user's choice wins
    await page.goto(`${h.url}tree`);
    await page.waitForSelector('body[data-ready]');
    expect(await theme()).toBe('dark');
    await page.click('.theme-toggle');
    expect(await theme()).toBe('light');
    // and from the notebook's View menu
    await page.goto(`${h.url}notebooks/dark.ipynb`);
    await page.waitForSelector('body[data-ready]');
    await page.click('[data-menu=view]');
    await page.click('.menu-item[data-command=toggle-theme]');
    await expect.poll(theme).toBe('dark');
    expect(h.pageErrors).toEqual([]);
  });
});
