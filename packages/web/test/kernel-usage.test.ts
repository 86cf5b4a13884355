// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The built-in kernel's specs, as the CLI registers them (relative: kernel-js is not a dependency of web).
import { builtinKernelSpecs } from '../../kernel-js/src/kernelspecs.js';
import { type Harness, login, notebookJson, startHarness } from './harness.js';

/** `123 MB · 4.5% CPU`: what the page shows once the kernel answered its usage_request. */
const USAGE_TEXT = /^\d+(\.\d)? (MB|GB) · \d+\.\d% CPU$/;

let h: Harness;
let page: Page;

beforeAll(async () => {
  h = await startHarness({ builtinKernelSpecs: builtinKernelSpecs({ mode: 'source' }) });
  page = await h.newPage();
  const python = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };
  await fs.writeFile(path.join(h.root, 'Usage.ipynb'), notebookJson([], python));
});

afterAll(async () => {
  await h?.close();
});

describe("each kernel's memory and CPU", () => {
  it('on the notebook page, beside the kernel status (a real ipykernel)', async () => {
    await login(page, h.url, 'notebooks/Usage.ipynb');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 60_000 });
    await expect.poll(() => page.locator('.kernel-usage').textContent(), { timeout: 20_000 }).toMatch(USAGE_TEXT);
  });

  it('in the Running list, for notebooks and for kernels without one', async () => {
    const bare = await page.request.post(`${h.url}api/kernels`, {
      data: { name: 'javascript' },
      headers: { 'X-XSRFToken': (await page.context().cookies()).find((c) => c.name === '_xsrf')?.value ?? '' },
    });
    expect(bare.status()).toBe(201);
    const { id } = (await bare.json()) as { id: string };
    await page.goto(`${h.url}tree`);
    await page.waitForSelector('body[data-ready]');
    await page.click('[data-tab=running]');
    const session = page.locator('.running-view .row[data-session]', { hasText: 'Usage.ipynb' });
    await expect.poll(() => session.locator('.col-usage').textContent(), { timeout: 20_000 }).toMatch(USAGE_TEXT);
    const kernel = page.locator(`.running-view .row[data-kernel="${id}"]`);
    await expect.poll(() => kernel.locator('.col-usage').textContent(), { timeout: 20_000 }).toMatch(USAGE_TEXT);
    expect(h.pageErrors).toEqual([]);
  });
});
