// needs: browser, jupyter_server
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { type Notebook6, startNotebook6 } from '../../../testing/notebook6.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitForValue } from '../../../testing/wait.js';

/**
 * The classic Notebook 6.4 (Debian `jupyter-notebook`) run with `--gateway-url <nbserve>`: it serves
 * the page and the notebook files, nbserve runs the kernels. Driven in headless Chromium as a user
 * would: New -> Python 3, type a cell, Shift+Enter, Ctrl+S.
 */

type Cell = {
  source: string | string[];
  outputs: Array<{ output_type: string; name?: string; text?: string | string[] }>;
};

const joined = (text: string | string[] | undefined) => (Array.isArray(text) ? text.join('') : (text ?? ''));

/** `probe`'s first value, polled every `everyMs`. */
function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  ms: number,
  what: string,
  everyMs = 5,
): Promise<T> {
  return waitForValue(what, ms, probe, everyMs);
}

/** The group of a kernel process (local kernels are spawned as group leaders). */
function signalKernel(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

describe('Notebook 6.4 in gateway mode against nbserve (headless Chromium, python3 kernel)', () => {
  let s: TestServer;
  let nb: Notebook6;
  let browser: Browser;

  beforeAll(async () => {
    // The test holds the kernel in its start for a while: no start timeout in the way on a loaded machine.
    s = await startServer({ kernelSpecDirs: ['/usr/share/jupyter/kernels'], kernelInfoTimeout: 600 });
    nb = await startNotebook6({ gatewayUrl: s.url, gatewayToken: s.token });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    // Notebook first: on SIGTERM it deletes its kernels on the gateway.
    await nb?.stop();
    await s?.close();
  }, 120_000);

  it('runs print(6*7) typed while the kernel still starts, shows 42, and the saved file holds it', async () => {
    const context = await browser.newContext();
    const tree = await context.newPage();
    await tree.goto(`${nb.url}tree?token=${nb.token}`);
    await tree.click('#new-dropdown-button');
    // The entry comes from nbserve's /api/kernelspecs.
    const [page] = await Promise.all([context.waitForEvent('page'), tree.locator('#kernel-python3 a').click()]);

    // Hold the kernel in its start (as a slow import or a loaded machine does) from the moment
    // nbserve spawned it: the user acts before it answered kernel_info. Notebook drops a run of a
    // page that has no kernel yet, so the page must get its kernel before the kernel is ready.
    const kernels = s.app.services.kernels;
    const kernelId = await until(() => kernels.list()[0]?.id, 120_000, 'nbserve to start a kernel');
    const pid = await until(() => kernels.get(kernelId).process?.pid, 60_000, 'the kernel process');
    signalKernel(pid, 'SIGSTOP');
    try {
      await page.waitForFunction(
        () => Boolean((window as { Jupyter?: { notebook?: { kernel?: unknown } } }).Jupyter?.notebook?.kernel),
        null,
        {
          timeout: 90_000,
        },
      );
      expect(kernels.get(kernelId).executionState).toBe('starting');
      await page.locator('.CodeMirror').first().click();
      await page.keyboard.type('print(6*7)');
      await page.keyboard.press('Shift+Enter');
      await expect
        .poll(() => page.locator('.input_prompt').first().textContent(), { timeout: 30_000 })
        .toContain('[*]');
    } finally {
      signalKernel(pid, 'SIGCONT');
    }

    const output = page.locator('.output_area pre').first();
    await output.waitFor({ timeout: 180_000 });
    expect(await output.textContent()).toBe('42\n');
    await expect.poll(() => page.locator('.input_prompt').first().textContent(), { timeout: 30_000 }).toContain('[1]');

    await page.keyboard.press('Control+s');
    const file = path.join(nb.notebookDir, 'Untitled.ipynb');
    const cell = await until(
      async () => {
        const saved = await readFile(file, 'utf8').then(
          (text) => JSON.parse(text) as { cells: Cell[] },
          () => undefined,
        );
        const first = saved?.cells[0];
        return first && first.outputs.length > 0 ? first : undefined;
      },
      60_000,
      'the notebook saved with its output',
      200,
    );
    expect(joined(cell.source)).toBe('print(6*7)');
    expect(cell.outputs.map((o) => ({ ...o, text: joined(o.text) }))).toEqual([
      { output_type: 'stream', name: 'stdout', text: '42\n' },
    ]);
    expect(kernels.get(kernelId).executionState).toBe('idle');
    await context.close();
  }, 480_000);
});
