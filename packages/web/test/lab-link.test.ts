// needs: browser
/**
 * "Open in JupyterLab" in Chromium: shown when JupyterLab is built here, it opens the folder the
 * dashboard shows by then (after moves inside the page) and the notebook the notebook page shows,
 * under an escaped base URL.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeLabAppDir } from '../../../testing/lab-app.js';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { type Harness, login, notebookJson, startHarness } from './harness.js';

let hx: Harness;
let appDir: string;

beforeAll(async () => {
  appDir = await writeLabAppDir(await makeTempDir('nbserve-lab-'));
  hx = await startHarness({ labAppDir: appDir, baseUrl: '/a%40b/' });
  await fs.mkdir(path.join(hx.root, 'sub dir'));
  await fs.writeFile(path.join(hx.root, 'sub dir', 'n.ipynb'), notebookJson([]));
}, 120_000);
afterAll(async () => {
  await hx?.close();
  await removeDir(appDir);
});

it('the dashboard link follows the folder shown, the notebook page links its notebook', async () => {
  const page = await hx.newPage();
  await login(page, hx.url);
  await page.locator('.entry-link', { hasText: 'sub dir' }).click();
  await page.waitForURL(/\/tree\/sub%20dir$/);
  await page.locator('a.lab-link').click();
  await page.waitForURL(/\/lab\/tree\/sub%20dir$/);
  expect(new URL(page.url()).pathname).toBe('/a%40b/lab/tree/sub%20dir');
  expect(await page.title()).toBe('JupyterLab');
  await page.goto(`${hx.url}notebooks/sub%20dir/n.ipynb`);
  const link = page.locator('a.lab-link');
  await expect.poll(() => link.getAttribute('href')).toBe('/a%40b/lab/tree/sub%20dir/n.ipynb');
  expect(hx.pageErrors).toEqual([]);
});
