import { existsSync } from 'node:fs';
import { launchChromium, measureNotebookPage, type PaintTiming } from '../lib/browser.js';
import { writePaintNotebook } from '../lib/fixtures.js';
import { ApiClient } from '../lib/http-client.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import type { ServerKind } from '../lib/servers.js';
import { median } from '../lib/stats.js';

/** The notebook page for a 5 MB, 500-cell notebook in headless Chromium, nbserve vs Notebook 6.4's classic page. */
export const firstPaintScenario: Scenario = {
  name: 'first-paint',
  group: 'web',
  title: 'notebook page of a 5 MB / 500-cell notebook in Chromium: first cells painted, all cells, scrolling',
  budgetMs: 420_000,
  async run(ctx) {
    if (!existsSync('/usr/bin/chromium')) {
      ctx.fail('chromium', '/usr/bin/chromium is not installed (apt-get install -y chromium)');
      return;
    }
    const cells = 500;
    const name = writePaintNotebook(ctx.root, 'paint-5mb.ipynb', cells, 5);
    // the classic page takes tens of seconds per load here, so it gets fewer runs
    const runs = ctx.size(3, 1);
    const runsFor = (kind: ServerKind) => (kind === 'notebook6' ? Math.min(runs, 2) : runs);
    const kinds: ServerKind[] =
      ctx.compareJupyter && existsSync('/usr/bin/jupyter-notebook') ? ['nbserve', 'notebook6'] : ['nbserve'];
    const results: Partial<Record<Subject, PaintTiming[]>> = {};
    const browser = await launchChromium();
    try {
      for (const kind of kinds) {
        const timings = await ctx.withServer(kind, async (server) => {
          const api = new ApiClient(server.origin, server.token);
          try {
            const page = await api.request('GET', `/notebooks/${name}`);
            if (page.status !== 200 || !String(page.headers['content-type']).includes('text/html')) {
              throw new Error(`GET /notebooks/${name} -> ${page.status} ${page.headers['content-type'] ?? ''}`);
            }
          } finally {
            api.close();
          }
          const samples: PaintTiming[] = [];
          for (let i = 0; i < runsFor(kind); i++) {
            samples.push(await measureNotebookPage(browser, `${server.origin}/notebooks/${name}`, server.token, cells));
          }
          return samples;
        });
        results[kind] = timings;
        ctx.log(
          `${kind}: first cell ${timings.map((t) => t.firstCell.toFixed(0)).join(', ')} ms; all ${cells} cells ${timings.map((t) => t.allCells.toFixed(0)).join(', ')} ms; FCP ${timings.map((t) => t.fcp.toFixed(0)).join(', ')} ms; scroll frame p95 ${timings.map((t) => t.scrollFrameP95.toFixed(1)).join(', ')} ms`,
        );
      }
    } finally {
      await browser.close();
    }
    const pick = (f: (t: PaintTiming) => number) => {
      const out: Partial<Record<Subject, number>> = {};
      for (const [who, timings] of Object.entries(results) as Array<[Subject, PaintTiming[]]>) {
        out[who] = median(timings.map(f));
      }
      return out;
    };
    const faster = [
      { kind: 'ratio' as const, against: 'notebook6' as const, op: '<=' as const, bound: 0.5, text: '≥2x faster' },
    ];
    ctx.record({
      metric: `first notebook cells painted (median of ${runs}, cold cache)`,
      unit: 'ms',
      values: pick((t) => t.firstCell),
      targets: faster,
    });
    ctx.record({
      metric: `all ${cells} cells in the DOM`,
      unit: 'ms',
      values: pick((t) => t.allCells),
      targets: faster,
    });
    ctx.record({ metric: 'first-contentful-paint (any content)', unit: 'ms', values: pick((t) => t.fcp) });
    ctx.record({
      metric: 'scrolling: p95 frame interval',
      unit: 'ms',
      values: pick((t) => t.scrollFrameP95),
      notes: ['scrolls 80% of a screen per frame to the end; 16.7 ms = 60 fps'],
    });
  },
};
