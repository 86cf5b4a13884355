// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN } from '../../../testing/token.js';
import { type Harness, login, notebookJson, startHarness } from './harness.js';

/**
 * Live documents in the notebook page (docs/collaboration.md): two people on one notebook see
 * each other's typing, cells, moves, outputs and cursors; cells run on the server, so a page may
 * close while one runs and a page opened later shows everything it printed.
 */

const code = (source: string) => ({ cell_type: 'code', source, metadata: {}, outputs: [], execution_count: null });
const PY = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };

/** A second person: another browser context (own cookies), logged in with the token. */
async function person(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1280, height: 860 } });
}

async function open(context: BrowserContext, url: string, nb: string, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss().catch(() => undefined);
  });
  await page.goto(`${url}notebooks/${nb}`);
  if (page.url().includes('/login')) {
    await page.fill('input[name=password]', TOKEN);
    await page.click('button[type=submit]');
  }
  await page.waitForSelector('body[data-collaboration=on]');
  await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
  return page;
}

const cellsOf = (page: Page) => page.locator('.notebook-cells > .cell');
const sources = (page: Page) =>
  cellsOf(page).evaluateAll((cells) =>
    cells.map((c) => {
      const lines = c.querySelectorAll('.cm-content > .cm-line');
      if (lines.length === 0) return c.querySelector('.source-static')?.textContent ?? '';
      return [...lines]
        .map((line) => {
          const copy = line.cloneNode(true) as HTMLElement;
          // Remote carets are widgets inside the text; they are not part of it.
          for (const caret of copy.querySelectorAll('.cm-ySelectionCaret')) caret.remove();
          return (copy.textContent ?? '').replace(/\u2060/g, '');
        })
        .join('\n');
    }),
  );

async function typeInto(page: Page, cell: Locator, text: string): Promise<void> {
  await cell.locator('.input-area').click();
  await cell.locator('.cm-content').waitFor();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText(text);
}

async function commandMode(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await expect.poll(() => page.evaluate(() => document.body.classList.contains('command-mode'))).toBe(true);
}

describe('two people on one notebook', () => {
  let h: Harness;
  let a: Page;
  let b: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    await fs.writeFile(
      path.join(h.root, 'shared.ipynb'),
      notebookJson([code('first = 1'), code('second = 2'), code('third = 3')], PY),
    );
    a = await open(h.context, h.url, 'shared.ipynb', errors);
    b = await open(await person(h.browser), h.url, 'shared.ipynb', errors);
  }, 180_000);

  afterAll(async () => {
    await h?.close();
  });

  it('shows each side the other one typing', async () => {
    await typeInto(a, cellsOf(a).nth(0), '\nfrom_a = "typed in A"');
    await expect.poll(() => sources(b).then((s) => s[0])).toBe('first = 1\nfrom_a = "typed in A"');
    await typeInto(b, cellsOf(b).nth(1), '\nfrom_b = "typed in B"');
    await expect.poll(() => sources(a).then((s) => s[1])).toBe('second = 2\nfrom_b = "typed in B"');
  }, 180_000);

  it("shows the other one's caret and name where they are", async () => {
    // A's editor is still open in cell 2 of B's typing: B's caret is drawn there, with B's name.
    await cellsOf(a).nth(1).locator('.input-area').click();
    const caret = a.locator('.cell').nth(1).locator('.cm-ySelectionCaret');
    await caret.waitFor();
    const bName = await a.locator('.collab-users .collab-user').getAttribute('title');
    expect(bName).toMatch(/^Anonymous /);
    expect(await caret.locator('.cm-ySelectionInfo').textContent()).toBe(bName);
    // The label on the cell each of them has selected.
    await expect.poll(() => b.locator('.cell').nth(1).locator('.collab-presence').count()).toBe(1);
    expect(await a.locator('.collab-users .collab-user').count()).toBe(1);
  }, 180_000);

  it('undoes only its own typing', async () => {
    const cell = (p: Page) => cellsOf(p).nth(2);
    await typeInto(a, cell(a), '\nmine = "A"');
    await expect.poll(() => sources(b).then((s) => s[2])).toContain('mine = "A"');
    await typeInto(b, cell(b), '\ntheirs = "B"');
    await expect.poll(() => sources(a).then((s) => s[2])).toContain('theirs = "B"');
    await cell(a).locator('.cm-content').click();
    await a.keyboard.press('Control+z');
    await expect.poll(() => sources(b).then((s) => s[2])).toBe('third = 3\ntheirs = "B"');
    await expect.poll(() => sources(a).then((s) => s[2])).toBe('third = 3\ntheirs = "B"');
  }, 180_000);

  it('adds, moves and deletes cells on both sides', async () => {
    await commandMode(a);
    await commandMode(b);
    await cellsOf(a).nth(0).locator('.input-prompt').click();
    await a.keyboard.press('b');
    await expect.poll(() => cellsOf(b).count()).toBe(4);
    await a.keyboard.press('Enter');
    await a.keyboard.insertText('added = "by A"');
    await expect.poll(() => sources(b).then((s) => s[1])).toBe('added = "by A"');
    // B moves its first cell down below A's new one.
    await cellsOf(b).nth(0).locator('.input-prompt').click();
    await b.click('[data-menu=edit]');
    await b.click('.menu-item[data-command=move-down]');
    await expect
      .poll(() => sources(a).then((s) => s.slice(0, 2)))
      .toEqual(['added = "by A"', 'first = 1\nfrom_a = "typed in A"']);
    expect(await sources(b)).toEqual(await sources(a));
    // B deletes the cell A added; A's selection stays on the cell it had.
    await commandMode(b);
    await cellsOf(b).nth(0).locator('.input-prompt').click();
    await b.keyboard.press('d');
    await b.keyboard.press('d');
    await expect.poll(() => cellsOf(a).count()).toBe(3);
    expect(await sources(a)).toEqual(await sources(b));
  }, 180_000);

  it('runs a cell on the server: both see the output and the prompt', async () => {
    await commandMode(a);
    const cell = cellsOf(a).nth(0);
    await cell.locator('.input-prompt').click();
    await typeInto(a, cell, '\nprint("ran by A", 1 + 2)');
    await a.keyboard.press('Control+Enter');
    const other = cellsOf(b).nth(0);
    await expect.poll(() => other.locator('.output-stream').textContent(), { timeout: 60_000 }).toBe('ran by A 3\n');
    await expect.poll(() => other.locator('.input-prompt').textContent()).toBe('In [1]:');
    await expect.poll(() => cell.locator('.input-prompt').textContent()).toBe('In [1]:');
    expect(await cell.locator('.output-stream').textContent()).toBe('ran by A 3\n');
  }, 180_000);

  it('saves the shared document with Ctrl-S, without a conflict dialog between the pages', async () => {
    await b.keyboard.press('Control+s');
    await b.locator('.save-state[data-state=saved]').waitFor();
    await a.keyboard.press('Control+s');
    await a.locator('.save-state[data-state=saved]').waitFor();
    const file = JSON.parse(await fs.readFile(path.join(h.root, 'shared.ipynb'), 'utf8')) as {
      cells: { source: string | string[]; outputs?: { text?: string[] }[] }[];
    };
    const text = (s: string | string[]) => (Array.isArray(s) ? s.join('') : s);
    expect(file.cells.map((c) => text(c.source))).toEqual(await sources(a));
    expect(file.cells[0]?.outputs?.[0]?.text).toEqual(['ran by A 3\n']);
    expect(await a.locator('dialog.modal').count()).toBe(0);
    expect(await b.locator('dialog.modal').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 180_000);

  it('asks input() and getpass on every page; either may answer, a password is masked', async () => {
    await commandMode(a);
    const cell = cellsOf(a).nth(2);
    await cell.locator('.input-prompt').click();
    await typeInto(
      a,
      cell,
      "\nname = input('Name? ')\nimport getpass\npw = getpass.getpass('Password: ')\nprint('hi', name, len(pw))",
    );
    // B is typing in another cell meanwhile.
    await cellsOf(b).nth(0).locator('.input-area').click();
    await cellsOf(b).nth(0).locator('.cm-content').waitFor();
    await a.keyboard.press('Control+Enter');
    const other = cellsOf(b).nth(2);
    const mine = cell.locator('.stdin-input');
    await mine.waitFor({ timeout: 60_000 });
    expect(await mine.getAttribute('type')).toBe('text');
    expect(await cell.locator('.stdin-prompt').textContent()).toBe('Name? ');
    // The page that ran it (its focus was in the cell) gets the focus in the box.
    await expect.poll(() => mine.evaluate((el) => el === document.activeElement)).toBe(true);
    // B, who did not run the cell, answers it; A's prompt goes away.
    const theirs = other.locator('.stdin-input');
    await theirs.waitFor({ timeout: 30_000 });
    // The prompt did not take B's focus out of the editor B is in.
    expect(await b.evaluate(() => document.activeElement?.closest('.cm-content') !== null)).toBe(true);
    await theirs.fill('Ada');
    await theirs.press('Enter');
    await expect.poll(() => cell.locator('.stdin-input').getAttribute('type'), { timeout: 30_000 }).toBe('password');
    await cell.locator('.stdin-input').fill('secret');
    await cell.locator('.stdin-input').press('Enter');
    for (const side of [cell, other]) {
      await expect.poll(() => side.locator('.output-area').textContent(), { timeout: 60_000 }).toContain('hi Ada 6');
      const text = await side.locator('.output-area').textContent();
      expect(text).toContain('Name? Ada');
      expect(text).toContain('Password: ········');
      expect(text).not.toContain('secret');
      expect(await side.locator('.stdin').count()).toBe(0);
    }
    expect(errors).toEqual([]);
  }, 180_000);
});

describe('a cell that runs while no page is open', () => {
  let h: Harness;

  beforeAll(async () => {
    // A replay buffer too small for the lines: whatever a later page shows came from the document.
    h = await startHarness({ kernelBufferMaxBytes: 64 });
    await fs.writeFile(path.join(h.root, 'long.ipynb'), notebookJson([code('')], PY));
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  it('keeps its output: a page opened later shows all of it, and so does the file', async () => {
    const errors: string[] = [];
    const first = await open(h.context, h.url, 'long.ipynb', errors);
    const cell = cellsOf(first).nth(0);
    await typeInto(
      first,
      cell,
      'import time\nfor i in range(20):\n    print(f"line {i}", flush=True)\n    time.sleep(0.25)',
    );
    await first.keyboard.press('Control+Enter');
    await expect.poll(() => cell.locator('.input-prompt').textContent()).toBe('In [*]:');
    await first.close();

    // Reopened from a new browser context, while the cell may still run: it is `In [*]` and
    // keeps streaming, or it has ended; after 10 s it has ended in any case.
    const later = await person(h.browser);
    await new Promise((r) => setTimeout(r, 2000));
    const second = await open(later, h.url, 'long.ipynb', errors);
    const shown = cellsOf(second).nth(0);
    const prompt = await shown.locator('.input-prompt').textContent();
    const lines =
      (await shown
        .locator('.output-stream')
        .textContent()
        .catch(() => '')) ?? '';
    if (prompt === 'In [*]:') expect(lines.split('\n').length - 1).toBeLessThan(20);
    await second.close();
    await new Promise((r) => setTimeout(r, 10_000));

    const third = await open(later, h.url, 'long.ipynb', errors);
    const done = cellsOf(third).nth(0);
    await expect.poll(() => done.locator('.input-prompt').textContent(), { timeout: 30_000 }).toBe('In [1]:');
    const all = Array.from({ length: 20 }, (_, i) => `line ${i}\n`).join('');
    expect(await done.locator('.output-stream').textContent()).toBe(all);

    await expect
      .poll(
        async () => {
          const file = JSON.parse(await fs.readFile(path.join(h.root, 'long.ipynb'), 'utf8')) as {
            cells: { execution_count: number | null; outputs: { text: string[] }[] }[];
          };
          const c = file.cells[0];
          return { count: c?.execution_count, text: c?.outputs[0]?.text.join('') };
        },
        { timeout: 30_000 },
      )
      .toEqual({ count: 1, text: all });
    expect(errors).toEqual([]);
  }, 180_000);
});

describe('without collaboration', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ collaboration: false });
    await fs.writeFile(path.join(h.root, 'solo.ipynb'), notebookJson([code('6 * 7')], PY));
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  it('works on its own, as before: runs through its kernel connection and saves itself', async () => {
    const page = await h.newPage();
    await login(page, h.url, 'notebooks/solo.ipynb');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
    expect(await page.evaluate(() => document.body.dataset.collaboration)).toBeUndefined();
    const cell = cellsOf(page).nth(0);
    await cell.locator('.input-area').click();
    await page.keyboard.press('Shift+Enter');
    await expect
      .poll(() => cell.locator('.output-execute_result').textContent(), { timeout: 60_000 })
      .toBe('Out[1]:42');
    await page.locator('.save-state[data-state=dirty]').waitFor();
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    const file = JSON.parse(await fs.readFile(path.join(h.root, 'solo.ipynb'), 'utf8')) as {
      cells: { outputs: { data: Record<string, string[]> }[] }[];
    };
    expect(file.cells[0]?.outputs[0]?.data['text/plain']).toEqual(['42']);
    expect(h.pageErrors).toEqual([]);
  }, 180_000);

  // Without collaboration the page answers input_request on its own kernel connection (with it,
  // the server keeps the prompt and any page answers: the test in 'two people on one notebook').
  it('answers input() and getpass prompts', async () => {
    const page = h.context.pages().at(-1) as Page;
    await page.keyboard.press('Escape');
    await cellsOf(page).nth(0).locator('.input-prompt').click();
    await page.keyboard.press('b');
    const cell = cellsOf(page).nth(1);
    await cell.locator('.input-area').click();
    await page.keyboard.insertText(
      "name = input('Name? ')\nimport getpass\npw = getpass.getpass('Password: ')\nprint('hi', name, len(pw))",
    );
    await page.keyboard.press('Shift+Enter');
    const box = cell.locator('.stdin-input');
    await box.waitFor({ timeout: 60_000 });
    expect(await box.getAttribute('type')).toBe('text');
    await box.fill('Ada');
    await box.press('Enter');
    await expect.poll(() => cell.locator('.stdin-input').getAttribute('type')).toBe('password');
    await cell.locator('.stdin-input').fill('secret');
    await cell.locator('.stdin-input').press('Enter');
    await expect.poll(() => cell.locator('.output-area').textContent(), { timeout: 30_000 }).toContain('hi Ada 6');
    const text = await cell.locator('.output-area').textContent();
    expect(text).toContain('Name? Ada');
    expect(text).not.toContain('secret');
  }, 180_000);

  it('asks before overwriting a file changed on disk, and before leaving with unsaved changes', async () => {
    const page = h.context.pages().at(-1) as Page;
    const file = path.join(h.root, 'solo.ipynb');
    const external = JSON.parse(await fs.readFile(file, 'utf8')) as { cells: unknown[] };
    external.cells.push({ cell_type: 'raw', source: 'edited elsewhere', metadata: {} });
    await fs.writeFile(file, JSON.stringify(external));
    await page.keyboard.press('Escape');
    await page.keyboard.press('b');
    await page.keyboard.press('Control+s');
    await page.locator('dialog.modal', { hasText: 'changed on disk' }).waitFor();
    await page.click('dialog.modal button:has-text("Overwrite")');
    await page.locator('.save-state[data-state=saved]').waitFor();
    expect(await fs.readFile(file, 'utf8')).not.toContain('edited elsewhere');
    await page.keyboard.press('b');
    await page.locator('.save-state[data-state=dirty]').waitFor();
    const dialogs = h.dialogs.length;
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => h.dialogs.slice(dialogs)).toEqual(['beforeunload: ']);
  }, 180_000);
});
