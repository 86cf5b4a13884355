// needs: kernel, browser
/**
 * The real JupyterLab 4 (packages/jupyterlab's build) in headless Chromium, collaborative, against
 * a real nbserve under an escaped base URL: two pages on one notebook while another program
 * rewrites the file and one page types (docs/collaboration.md, "Changes on disk"), and File >
 * "Revert Notebook to Checkpoint…" offering the checkpoints Ctrl+S made.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { openLab, watch } from '../../../testing/lab-browser.js';
import { startServer, type TestServer } from '../../../testing/server.js';

interface FileCell {
  id?: string;
  cell_type: string;
  source: string | string[];
  metadata: Record<string, unknown>;
  outputs?: unknown[];
  execution_count?: number | null;
}

const code = (id: string, source: string): FileCell => ({
  cell_type: 'code',
  id,
  source,
  metadata: {},
  outputs: [],
  execution_count: null,
});

async function writeNotebook(file: string, cells: FileCell[]): Promise<void> {
  const kernelspec = { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' };
  await fs.writeFile(file, JSON.stringify({ cells, metadata: { kernelspec }, nbformat: 4, nbformat_minor: 5 }));
}

const text = (source: string | string[]) => (Array.isArray(source) ? source.join('') : source);
const fileSources = async (file: string): Promise<string[]> =>
  (JSON.parse(await fs.readFile(file, 'utf8')).cells as FileCell[]).map((c) => text(c.source));

const cellsOf = (page: Page) => page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell');
const sourcesOf = (page: Page) =>
  cellsOf(page).evaluateAll((cells) =>
    cells.map((c) =>
      [...c.querySelectorAll('.cm-content > .cm-line')].map((line) => line.textContent ?? '').join('\n'),
    ),
  );

/** Clicks through the menu bar: a top menu, then the item (labels as shown). */
async function menu(page: Page, top: string, item: RegExp): Promise<void> {
  await page.locator('.lm-MenuBar-itemLabel', { hasText: new RegExp(`^${top}$`) }).click();
  await page.locator('.lm-Menu:visible .lm-Menu-itemLabel', { hasText: item }).click();
}

describe('JupyterLab while the notebook changes on disk, base URL /a%40b/', () => {
  let s: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    s = await startServer({ baseUrl: '/a%40b/', exposeAppInBrowser: true });
    browser = await launchChromium();
    for (let i = 0; i < 2; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      // Log in once through the token URL, as a user does; the pages themselves carry no token.
      const login = await context.newPage();
      await openLab(login, `${s.url}lab?token=${s.token}`);
      await login.close();
      contexts.push(context);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  async function open(context: BrowserContext, workspace: string, name: string): Promise<Page> {
    const page = await context.newPage();
    await openLab(page, `${s.url}lab/workspaces/${workspace}/tree/${name}`);
    await cellsOf(page).first().locator('.cm-content').waitFor();
    return page;
  }

  it('shows both pages a program’s rewrite while one types in another cell; the file gets both', async () => {
    const file = path.join(s.root, 'typing.ipynb');
    await writeNotebook(file, [code('c1', 'let one = 1'), code('c2', 'let two = 2'), code('c3', 'let three = 3')]);
    const a = await open(contexts[0] as BrowserContext, 'typing-a', 'typing.ipynb');
    const b = await open(contexts[1] as BrowserContext, 'typing-b', 'typing.ipynb');
    const problems = [...watch(a), ...watch(b)];
    await cellsOf(a).first().locator('.cm-content').click();
    await a.keyboard.press('End');
    const typed = ' + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9';
    const typing = a.keyboard.type(typed, { delay: 60 });
    await expect.poll(async () => (await sourcesOf(b))[0]?.length ?? 0).toBeGreaterThan('let one = 1 + 1'.length);
    // Another program's read-modify-write, saved atomically as editors and git do.
    const notebook = JSON.parse(await fs.readFile(file, 'utf8'));
    notebook.cells[2].source = 'let three = "outside"';
    notebook.cells.push(code('c4', 'let four = "added outside"'));
    await fs.writeFile(`${file}.tmp`, JSON.stringify(notebook, null, 1));
    await fs.rename(`${file}.tmp`, file);
    for (const page of [a, b]) {
      await expect
        .poll(async () => (await sourcesOf(page)).slice(2), { timeout: 5_000 })
        .toEqual(['let three = "outside"', 'let four = "added outside"']);
    }
    await typing;
    const expected = [`let one = 1${typed}`, 'let two = 2', 'let three = "outside"', 'let four = "added outside"'];
    for (const page of [a, b]) await expect.poll(() => sourcesOf(page), { timeout: 10_000 }).toEqual(expected);
    await a.keyboard.press('Control+s');
    await expect.poll(() => fileSources(file), { timeout: 10_000 }).toEqual(expected);
    // no "File Changed" dialog or error on either page
    expect(await a.locator('.jp-Dialog').allTextContents()).toEqual([]);
    expect(await b.locator('.jp-Dialog').allTextContents()).toEqual([]);
    expect(problems).toEqual([]);
    await Promise.all([a.close(), b.close()]);
  });

  it('offers the checkpoints of three saves in Revert Notebook to Checkpoint, and restores an older one', async () => {
    const file = path.join(s.root, 'history.ipynb');
    await writeNotebook(file, [code('c1', 'let v = 0'), code('c2', 'let w = 0')]);
    const page = await open(contexts[0] as BrowserContext, 'history', 'history.ipynb');
    const problems = watch(page);
    const route = 'api/contents/history.ipynb/checkpoints';
    const checkpoints = async () => (await (await s.fetch(route)).json()) as { id: string }[];
    for (const version of [1, 2, 3]) {
      const before = (await checkpoints()).length;
      await cellsOf(page).first().locator('.cm-content').click();
      await page.keyboard.press('End');
      await page.keyboard.type(` + ${version}`);
      await page.keyboard.press('Control+s');
      await expect.poll(async () => (await checkpoints()).length, { timeout: 10_000 }).toBeGreaterThan(before);
      await expect.poll(async () => (await fileSources(file))[0], { timeout: 10_000 }).toContain(` + ${version}`);
    }
    await menu(page, 'File', /^Revert Notebook to Checkpoint/);
    const dialog = page.locator('.jp-Dialog');
    await dialog.locator('.jp-Dialog-header', { hasText: 'Choose a checkpoint' }).waitFor();
    // The checkpoint of the first save (the first whose file has " + 1").
    const listed = await checkpoints();
    const firstCells = await Promise.all(
      listed.map(async ({ id }) => {
        const model = (await (await s.fetch(`${route}/${id}`)).json()) as { content: { cells: FileCell[] } };
        return text(model.content.cells[0]?.source ?? '');
      }),
    );
    const first = firstCells.indexOf('let v = 0 + 1');
    expect(first).toBeGreaterThanOrEqual(0);
    const options = await dialog.locator('select option').allTextContents();
    // every checkpoint kept (three saves, at most --checkpoints-keep), newest first as "<index>. <date> (<when>)"
    expect(listed.length).toBeGreaterThanOrEqual(3);
    expect(options.map((o) => o.split('.')[0])).toEqual(listed.map((_, i) => String(i)));
    await dialog.locator('select').selectOption({ index: listed.length - 1 - first });
    await dialog.getByRole('button', { name: 'OK' }).click();
    await dialog.locator('.jp-Dialog-header', { hasText: 'Revert notebook to checkpoint' }).waitFor();
    await page.getByRole('button', { name: 'Revert to Checkpoint' }).click();
    const restored = ['let v = 0 + 1', 'let w = 0'];
    await expect.poll(() => sourcesOf(page), { timeout: 10_000 }).toEqual(restored);
    await expect.poll(() => fileSources(file), { timeout: 10_000 }).toEqual(restored);
    // it stays so (the room's merge and the page's reload do not double cells)
    await page.waitForTimeout(2_000);
    expect(await sourcesOf(page)).toEqual(restored);
    expect(await fileSources(file)).toEqual(restored);
    expect(problems).toEqual([]);
    await page.close();
  });
});
