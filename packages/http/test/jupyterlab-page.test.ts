// needs: kernel, browser
/**
 * The real JupyterLab 4 (packages/jupyterlab's build) in headless Chromium against a real nbserve,
 * under the root and under an escaped base URL: it loads with no error caused by the server, runs
 * cells on python3 and on the built-in JavaScript kernel (an ipywidgets slider shows), keeps a
 * theme across a reload and a server restart, brings a notebook back in its named workspace,
 * runs a command in a terminal opened from the File menu, shows two pages each other's typing and
 * outputs (of a page's run and of a server-side run), and loads a prebuilt (federated) extension
 * found in a labextensions folder.
 * One server per base URL serves the tests that do not interfere; the restart test has its own.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { firstCell, type LabWindow, openLab, runFirstCell, watch } from '../../../testing/lab-browser.js';
import { buildTestLabextension, TEST_LABEXTENSION_NAME } from '../../../testing/labextension.js';
import { type StartServerOptions, startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';

const ENTRIES = [
  { name: 'base URL /', baseUrl: '/' },
  { name: 'base URL /a%40b/', baseUrl: '/a%40b/' },
];

const KERNELSPECS = {
  python3: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' },
  javascript: { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' },
};

async function writeNotebook(root: string, name: string, kernel: keyof typeof KERNELSPECS): Promise<void> {
  const notebook = {
    cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: '', execution_count: null, outputs: [] }],
    metadata: { kernelspec: KERNELSPECS[kernel] },
    nbformat: 4,
    nbformat_minor: 5,
  };
  await fs.writeFile(path.join(root, name), JSON.stringify(notebook));
}

/**
 * JupyterLab 4.6's debugger asks a notebook's debugger session for its modules after every
 * execute_reply, and throws when the kernel has none: its spec does not say `debugger: true`, as
 * the built-in JavaScript kernel's does not (ipykernel's does). JupyterLab's own error, not nbserve's.
 */
const NO_DEBUGGER = 'page error: No active debugger session';

/** Clicks through the menu bar: a top menu, then submenus and the item (labels as shown). */
async function menu(page: Page, ...labels: string[]): Promise<void> {
  const [top, ...rest] = labels;
  await page.locator('.lm-MenuBar-itemLabel', { hasText: new RegExp(`^${top}$`) }).click();
  for (const [index, label] of rest.entries()) {
    const item = page.locator('.lm-Menu:visible .lm-Menu-itemLabel', { hasText: new RegExp(`^${label}$`) });
    if (index < rest.length - 1) await item.hover();
    else await item.click();
  }
}

async function fileContains(file: string, text: string): Promise<boolean> {
  return (await fs.readFile(file, 'utf8').catch(() => '')).includes(text);
}

describe.each(ENTRIES)('JupyterLab in Chromium, $name', (entry) => {
  let extensionsDir: string;
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  const options = (): StartServerOptions => ({
    ...entry,
    exposeAppInBrowser: true,
    labExtensionsDirs: [extensionsDir],
  });

  beforeAll(async () => {
    // The prebuilt extension, installed as `jupyter labextension` would: <labextensions>/<name>/
    extensionsDir = await makeTempDir();
    await fs.cp(await buildTestLabextension(), path.join(extensionsDir, TEST_LABEXTENSION_NAME), { recursive: true });
    s = await startServer(options());
    await writeNotebook(s.root, 'py.ipynb', 'python3');
    await writeNotebook(s.root, 'js.ipynb', 'javascript');
    await writeNotebook(s.root, 'shared.ipynb', 'javascript');
    await writeNotebook(s.root, 'ws.ipynb', 'javascript');
    browser = await launchChromium();
    context = await browser.newContext();
    // Log in once through the token URL, as a user does; the page itself carries no token.
    const login = await context.newPage();
    await openLab(login, `${s.url}lab?token=${s.token}`);
    await login.close();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    if (extensionsDir) await removeDir(extensionsDir);
  });

  it('loads with no page error, failed request or refused socket, and the prebuilt extension runs', async () => {
    const page = await context.newPage();
    const problems = watch(page);
    await openLab(page, `${s.url}lab`);
    // give the page's sockets (events, kernels, global awareness) time to connect or fail
    await page.waitForTimeout(3000);
    expect(await page.title()).toContain('JupyterLab');
    const marker = page.locator('#nbserve-test-marker');
    await expect.poll(() => marker.textContent()).toBe('prebuilt extension loaded');
    expect(await marker.evaluate((node) => getComputedStyle(node).color)).toBe('rgb(1, 2, 3)');
    expect(
      await page.evaluate(() => (window as unknown as LabWindow).jupyterapp.commands.execute('nbserve-test:marker')),
    ).toBe('prebuilt extension loaded');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('runs a python3 cell', async () => {
    const page = await context.newPage();
    const problems = watch(page);
    await openLab(page, `${s.url}lab/workspaces/python/tree/py.ipynb`);
    await runFirstCell(page, 'print(6 * 7)');
    await expect
      .poll(() => firstCell(page).locator('.jp-OutputArea-output').textContent(), { timeout: 45_000 })
      .toBe('42\n');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('runs a JavaScript-kernel cell that shows an ipywidgets slider', async () => {
    const page = await context.newPage();
    const problems = watch(page);
    await openLab(page, `${s.url}lab/workspaces/javascript/tree/js.ipynb`);
    await runFirstCell(page, 'new widgets.IntSlider({ value: 7, max: 10, description: "n" })');
    const slider = firstCell(page).locator('.jp-OutputArea-output .widget-slider');
    await slider.waitFor({ timeout: 45_000 });
    expect(await slider.locator('.widget-label').textContent()).toBe('n');
    expect(await slider.locator('.widget-readout').textContent()).toBe('7');
    expect(problems.filter((problem) => problem !== NO_DEBUGGER)).toEqual([]);
    await page.close();
  });

  it('brings an opened notebook back in its named workspace after a reload', async () => {
    const page = await context.newPage();
    await openLab(page, `${s.url}lab/workspaces/w1`);
    await page.evaluate(() =>
      (window as unknown as LabWindow).jupyterapp.commands.execute('docmanager:open', { path: 'ws.ipynb' }),
    );
    // JupyterLab saves the layout into the workspace (jupyterlab_server's file name)
    const stored = path.join(s.dir, 'config', 'lab', 'workspaces');
    await expect
      .poll(
        async () => {
          const files = await fs.readdir(stored).catch(() => [] as string[]);
          const file = files.find((name) => name.startsWith('w1-') && name.endsWith('.jupyterlab-workspace'));
          return file ? fileContains(path.join(stored, file), 'ws.ipynb') : false;
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    await openLab(page, `${s.url}lab/workspaces/w1`);
    await page.locator('#jp-main-dock-panel .lm-TabBar-tabLabel', { hasText: /^ws\.ipynb$/ }).waitFor();
    await page.close();
  });

  it('opens a terminal from File > New > Terminal and runs a command in it', async () => {
    const page = await context.newPage();
    await openLab(page, `${s.url}lab/workspaces/terminal`);
    await menu(page, 'File', 'New', 'Terminal');
    const terminal = page.locator('.jp-Terminal:visible');
    await terminal.locator('.xterm-helper-textarea').waitFor({ state: 'attached', timeout: 30_000 });
    await terminal.click();
    await page.keyboard.type('echo $((6 * 7)) > term-out.txt\n');
    await expect.poll(() => fileContains(path.join(s.root, 'term-out.txt'), '42'), { timeout: 30_000 }).toBe(true);
    await page.close();
  });

  it("shows two pages on one notebook each other's typing, a page's run and a server-side run", async () => {
    const [a, b] = [await context.newPage(), await context.newPage()];
    await openLab(a, `${s.url}lab/workspaces/shared-a/tree/shared.ipynb`);
    await openLab(b, `${s.url}lab/workspaces/shared-b/tree/shared.ipynb`);
    const editorOf = (page: Page) => firstCell(page).locator('.cm-content');
    await editorOf(a).click();
    await a.keyboard.type('"typed in A:" + (6 * 7)');
    await expect.poll(() => editorOf(b).textContent(), { timeout: 20_000 }).toBe('"typed in A:" + (6 * 7)');
    await a.keyboard.press('Shift+Enter');
    const outputOf = (page: Page) => firstCell(page).locator('.jp-OutputArea-output');
    await expect.poll(() => outputOf(b).textContent(), { timeout: 45_000 }).toBe("'typed in A:42'");

    // a run the server makes into the shared document (POST api/kernels/<id>/execute) shows on both
    const sessions = (await (await s.fetch('api/sessions')).json()) as { path: string; kernel: { id: string } }[];
    const kernelId = sessions.find((session) => session.path === 'shared.ipynb')?.kernel.id;
    const { id: fileId } = (await (await s.fetch('api/fileid/id?path=shared.ipynb')).json()) as { id: string };
    const run = await s.fetch(`api/kernels/${kernelId}/execute`, {
      method: 'POST',
      json: {
        code: '"run by the server:" + (6 * 7)',
        metadata: { document_id: `json:notebook:${fileId}`, cell_id: 'c1' },
      },
    });
    expect(run.status).toBe(202);
    for (const page of [a, b]) {
      await expect.poll(() => outputOf(page).textContent(), { timeout: 45_000 }).toBe("'run by the server:42'");
    }
    await a.close();
    await b.close();
  });

  it('keeps a theme chosen in the Settings menu across a reload and a server restart', async () => {
    const configDir = await makeTempDir();
    const root = await makeTempDir();
    const themed = (page: Page) => page.evaluate(() => document.body.dataset.jpThemeName);
    let first: TestServer | undefined = await startServer({ ...options(), configDir, root });
    try {
      const own = await browser.newContext();
      const page = await own.newPage();
      await openLab(page, `${first.url}lab?token=${first.token}`);
      expect(await themed(page)).toBe('JupyterLab Light');
      await menu(page, 'Settings', 'Theme', 'JupyterLab Dark');
      await expect.poll(() => themed(page)).toBe('JupyterLab Dark');
      const stored = path.join(
        configDir,
        'lab',
        'user-settings',
        '@jupyterlab',
        'apputils-extension',
        'themes.jupyterlab-settings',
      );
      await expect.poll(() => fileContains(stored, 'JupyterLab Dark'), { timeout: 20_000 }).toBe(true);
      await openLab(page, `${first.url}lab`);
      await expect.poll(() => themed(page)).toBe('JupyterLab Dark');

      await first.close();
      first = undefined;
      const second = await startServer({ ...options(), configDir, root });
      try {
        await openLab(page, `${second.url}lab?token=${second.token}`);
        await expect.poll(() => themed(page)).toBe('JupyterLab Dark');
      } finally {
        await own.close();
        await second.close();
      }
    } finally {
      await first?.close();
      await removeDir(configDir);
      await removeDir(root);
    }
  });
});
