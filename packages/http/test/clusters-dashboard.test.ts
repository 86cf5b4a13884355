// needs: kernel, browser
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir } from '../../../testing/temp.js';
import { TOKEN } from '../../../testing/token.js';

describe("the dashboard's Clusters tab against the cluster API (headless Chromium)", () => {
  let browser: Browser;
  let s: TestServer;
  let missing: TestServer;
  let ipythonDir: string;

  beforeAll(async () => {
    ipythonDir = await makeTempDir('nbserve-tab-ipython-');
    await fs.mkdir(nodePath.join(ipythonDir, 'profile_tab'));
    s = await startServer({
      ipclusterCommand: ['/usr/bin/python3', '-m', 'ipyparallel.cluster'],
      profileSearchDirs: [ipythonDir],
    });
    missing = await startServer({
      ipclusterCommand: ['/nonexistent/python3', '-m', 'ipyparallel.cluster'],
      profileSearchDirs: [ipythonDir],
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    const clusters = s.app.services.clusters;
    await clusters.idle();
    if ((await clusters.get('tab')).status === 'running') {
      await clusters.stop('tab');
      await clusters.idle();
    }
    await s.close();
    await missing.close();
    await fs.rm(ipythonDir, { recursive: true, force: true });
  });

  it('starts a cluster with the chosen engine count and stops it', async () => {
    const page = await browser.newPage();
    await page.goto(`${s.origin}/tree?token=${TOKEN}`);
    await page.waitForSelector('body[data-ready]');
    await page.click('[data-tab=clusters]');
    const row = page.locator('.clusters-view .row[data-profile="tab"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('stopped');
    await row.locator('input.engines').fill('1');
    await row.locator('button', { hasText: 'Start' }).click();
    await row.locator('text=running (1 engines)').waitFor({ timeout: 60_000 });
    expect(await (await s.fetch('/api/clusters/tab')).json()).toMatchObject({ status: 'running', n: 1 });
    await row.locator('button', { hasText: 'Stop' }).click();
    await row.locator('text=stopped').waitFor({ timeout: 30_000 });
    await s.app.services.clusters.idle();
    expect(await (await s.fetch('/api/clusters/tab')).json()).toMatchObject({ status: 'stopped' });
    await page.close();
  }, 120_000);

  it('says how to install ipcluster when it is missing', async () => {
    const page = await browser.newPage();
    await page.goto(`${missing.origin}/tree?token=${TOKEN}`);
    await page.waitForSelector('body[data-ready]');
    await page.click('[data-tab=clusters]');
    const error = page.locator('.clusters-error');
    await error.waitFor();
    expect(await error.textContent()).toContain('apt-get install python3-ipyparallel');
    await page.close();
  });
});
