// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The built-in kernel's specs, as the CLI registers them (relative: kernel-js is not a dependency of web).
import { builtinKernelSpecs } from '../../kernel-js/src/kernelspecs.js';
import { type Harness, login, startHarness } from './harness.js';

let h: Harness;
let page: Page;

const cells = () => page.locator('.notebook-cells > .cell');

async function run(code: string): Promise<Locator> {
  const cell = cells().nth((await cells().count()) - 1);
  await cell.locator('.input-area').click();
  await page.keyboard.insertText(code);
  await page.keyboard.press('Shift+Enter');
  await expect.poll(() => cell.locator('.input-prompt').textContent(), { timeout: 30_000 }).toMatch(/^In \[\d+\]:$/);
  return cell;
}

beforeAll(async () => {
  h = await startHarness({ builtinKernelSpecs: builtinKernelSpecs({ mode: 'source' }) });
  page = await h.newPage();
});

afterAll(async () => {
  await h?.close();
});

describe('the same notebook page with the built-in JavaScript kernel', () => {
  it('creates a JavaScript notebook from the New menu (with the kernel logo when it has one)', async () => {
    await login(page, h.url);
    await page.click('text=New ▾');
    const entry = page.locator('.menu-item', { hasText: 'JavaScript (Node.js)' });
    const specs = (await (await page.request.get(`${h.url}api/kernelspecs`)).json()) as {
      kernelspecs: Record<string, { resources: Record<string, string> }>;
    };
    const logo = specs.kernelspecs.javascript?.resources['logo-32x32'];
    expect(await entry.locator('img.kernel-logo').count()).toBe(logo ? 1 : 0);
    await entry.click();
    await page.waitForURL(/\/notebooks\/Untitled\.ipynb$/);
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    expect(await page.locator('.kernel-name').textContent()).toBe('JavaScript (Node.js)');
  });

  it('runs JavaScript: results, console output and errors, with JavaScript highlighting', async () => {
    const result = await run(
      'const xs = [1, 2, 3];\nconsole.log("sum is", xs.reduce((a, b) => a + b));\nxs.map((x) => x * 2)',
    );
    expect(await result.locator('.output-stream').textContent()).toContain('sum is 6');
    expect(await result.locator('.output-execute_result').textContent()).toContain('2, 4, 6');
    expect(await result.locator('.tok-keyword', { hasText: 'const' }).count()).toBe(1);
    const long = await run('for (let i = 0; i < 300; i++) console.log("line", i);');
    expect(await long.locator('.output-area.scrolled').count()).toBe(1);
    await long.locator('.output-prompt').first().click();
    expect(await long.locator('.output-area.scrolled').count()).toBe(0);
    const error = await run('throw new TypeError("boom")');
    expect(await error.locator('.output-error').textContent()).toContain('TypeError');
    expect(await error.locator('.output-error').textContent()).toContain('boom');
  });

  it('adds a markdown cell, saves, and finds everything after a reload', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('m');
    await page.keyboard.press('Enter');
    await page.keyboard.insertText('## From JS\n\n$a^2 + b^2 = c^2$');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    const nb = JSON.parse(await fs.readFile(path.join(h.root, 'Untitled.ipynb'), 'utf8'));
    expect(nb.metadata.kernelspec.name).toBe('javascript');
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    expect(await page.locator('.output-execute_result').first().textContent()).toContain('2, 4, 6');
    expect(await page.locator('.markdown-cell.rendered h2').textContent()).toBe('From JS');
    expect(await page.locator('.markdown-cell.rendered .katex').count()).toBe(1);
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
  });

  it('runs all cells from the Cell menu, and edits a rendered markdown cell on double-click', async () => {
    const counts = () => page.locator('.code-cell .input-prompt').allTextContents();
    const before = (await counts()).filter((c) => /\d/.test(c)).length;
    await page.click('[data-menu=cell]');
    await page.click('.menu-item[data-command=run-all]');
    await expect
      .poll(
        async () => (await counts()).filter((c) => /\[(\d+)\]/.test(c) && Number(c.match(/\d+/)?.[0]) > before).length,
      )
      .toBeGreaterThan(1);
    const md = page.locator('.markdown-cell.rendered').first();
    await md.locator('.markdown-rendered').dblclick();
    await page.locator('.markdown-cell:not(.rendered) .cm-editor').waitFor();
    await page.keyboard.press('Shift+Enter');
    await page.locator('.markdown-cell.rendered h2').first().waitFor();
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
  });

  it('autosaves on the interval from the notebook config section', async () => {
    const put = await page.request.put(`${h.url}api/config/notebook`, {
      data: { autosave_interval: 1000 },
      headers: { 'X-XSRFToken': (await h.context.cookies()).find((c) => c.name === '_xsrf')?.value ?? '' },
    });
    expect(put.ok()).toBe(true);
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    await run('"autosaved"');
    await page.locator('.save-state', { hasText: 'Autosaved' }).waitFor({ timeout: 10_000 });
    const nb = JSON.parse(await fs.readFile(path.join(h.root, 'Untitled.ipynb'), 'utf8'));
    expect(JSON.stringify(nb.cells)).toContain('autosaved');
  });

  it('changes the kernel to Python from the Kernel menu', async () => {
    await page.click('[data-menu=kernel]');
    await page.click('[data-command=change-kernel]');
    await page.click('.menu-item[data-kernel=python3]');
    await expect
      .poll(() => page.locator('.kernel-name').textContent(), { timeout: 30_000 })
      .toBe('Python 3 (ipykernel)');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    const cell = await run('import sys\nsys.version_info[0]');
    expect(await cell.locator('.output-execute_result').textContent()).toBe('Out[1]:3');
    expect(h.pageErrors).toEqual([]);
  });
});
