import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../lib/browser.js';
import { type LabLoad, measureLabLoad, prepareLabContext } from '../lib/lab-load.js';
import type { Scenario } from '../lib/scenario.js';
import { median } from '../lib/stats.js';
import { REPO_ROOT } from '../lib/workspace.js';

const LAB_BUILD = join(REPO_ROOT, 'packages/jupyterlab/dist/index.html');

const KB = 1024;

/** The bench starts jupyter_server without JupyterLab (none is installed on its machine): no comparison row. */
const NO_COMPARISON =
  'not compared with Python JupyterLab on jupyter_server: the bench machine has no Python JupyterLab to run';

/**
 * JupyterLab 4 (packages/jupyterlab's build) in headless Chromium against nbserve: what a first
 * load (empty cache) and a warm reload (same browser context) transfer, and how long each takes
 * until the app's `restored` resolves.
 */
export const jupyterlabScenario: Scenario = {
  name: 'jupyterlab',
  group: 'web',
  title: 'JupyterLab in Chromium: bytes over the wire and time to restored, first load and warm reload',
  budgetMs: 420_000,
  async run(ctx) {
    if (!existsSync('/usr/bin/chromium')) {
      ctx.fail('chromium', '/usr/bin/chromium is not installed (apt-get install -y chromium)');
      return;
    }
    if (!existsSync(LAB_BUILD)) {
      ctx.fail('nbserve', 'packages/jupyterlab/dist is not built (pnpm build)');
      return;
    }
    if (ctx.compareJupyter) ctx.log(NO_COMPARISON);
    const runs = ctx.size(3, 2);
    const first: LabLoad[] = [];
    const warm: LabLoad[] = [];
    const browser = await launchChromium();
    try {
      await ctx.withServer(
        'nbserve',
        async (server) => {
          for (let i = 0; i < runs; i++) {
            // a fresh context each run: an empty HTTP cache, so the first load is a first visit
            const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
            try {
              await prepareLabContext(context);
              // log in as a user does, through the token URL; the page itself carries no token
              const login = await context.request.get(`${server.origin}/lab?token=${server.token}`);
              if (login.status() !== 200) throw new Error(`GET /lab?token=… -> ${login.status()}`);
              const page = await context.newPage();
              const url = `${server.origin}/lab`;
              first.push(await measureLabLoad(page, url, false));
              warm.push(await measureLabLoad(page, url, true));
            } finally {
              await context.close();
            }
          }
        },
        { args: ['--expose-app-in-browser'] },
      );
    } finally {
      await browser.close();
    }
    for (const [label, loads] of [
      ['first load', first],
      ['warm reload', warm],
    ] as const) {
      ctx.log(
        `${label}: restored ${loads.map((l) => l.restoredMs.toFixed(0)).join(', ')} ms; page ${loads.map((l) => (l.pageBytes / KB).toFixed(1)).join(', ')} KB; ` +
          `besides the page ${loads.map((l) => (l.otherBytes / KB).toFixed(1)).join(', ')} KB in ${loads.map((l) => l.otherRequests).join(', ')} requests ` +
          `(${loads.map((l) => l.notModified).join(', ')} answered 304; ${loads.map((l) => l.fromCache).join(', ')} from cache)`,
      );
      const last = loads[loads.length - 1];
      if (last) {
        ctx.log(
          `${label}, largest transfers: ${last.largest.map((t) => `${t.status} ${new URL(t.url).pathname} ${(t.bytes / KB).toFixed(1)} KB`).join('; ')}`,
        );
      }
    }
    const notes = [
      'headless Chromium; bytes are CDP encodedDataLength (headers and compressed bodies as received), WebSocket frames not counted',
      NO_COMPARISON,
    ];
    const med = (loads: LabLoad[], f: (l: LabLoad) => number) => ({ nbserve: median(loads.map(f)) });
    ctx.record({
      metric: `first load (empty cache): time to app.restored (median of ${runs})`,
      unit: 'ms',
      values: med(first, (l) => l.restoredMs),
      notes,
    });
    ctx.record({
      metric: 'first load: bytes transferred, page and all',
      unit: 'KB',
      values: med(first, (l) => (l.pageBytes + l.otherBytes) / KB),
    });
    ctx.record({
      metric: 'warm reload (same context): time to app.restored',
      unit: 'ms',
      values: med(warm, (l) => l.restoredMs),
    });
    ctx.record({
      metric: 'warm reload: bytes transferred besides the page HTML',
      unit: 'KB',
      values: med(warm, (l) => l.otherBytes / KB),
      targets: [{ kind: 'at most', bound: 100, text: '< 100 KB' }],
    });
  },
};
