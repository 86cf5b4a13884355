import { spawn } from 'node:child_process';
import { launchChromium } from '../testing/chromium.js';

const port = 18931,
  token = 'tok123';
const base = process.env.BASE ?? '/';
const proc = spawn(
  process.execPath,
  [
    'packages/cli/dist/nbserve.js',
    '/tmp/dash-root',
    '--port',
    String(port),
    '--ip',
    '127.0.0.1',
    '--token',
    token,
    '--no-browser',
    ...(base !== '/' ? ['--base-url', base] : []),
  ],
  { stdio: ['ignore', process.env.TRACEGC ? 'inherit' : 'ignore', 'inherit'] },
);
try {
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${origin}${base}api`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const browser = await launchChromium();
  for (let run = 0; run < Number(process.env.RUNS ?? 4); run++) {
    const context = await browser.newContext({
      extraHTTPHeaders: { authorization: `token ${token}` },
      viewport: { width: 1280, height: 900 },
    });
    await context.addInitScript(() => {
      const w = window as unknown as { __row?: number; __lt: string[] };
      w.__lt = [];
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) w.__lt.push(`${e.startTime.toFixed(0)}+${e.duration.toFixed(0)}`);
      }).observe({ type: 'longtask', buffered: true });
      new MutationObserver(() => {
        if (w.__row === undefined && document.querySelector('.vlist .row[data-name="file-000000.txt"]'))
          w.__row = performance.now();
      }).observe(document, { childList: true, subtree: true });
    });
    const page = await context.newPage();
    const cdp = process.env.CPUPROF ? await context.newCDPSession(page) : undefined;
    if (cdp) { await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 200 }); await cdp.send('Profiler.start'); }
    await page.goto(`${origin}${base}tree/big${process.env.URLTOKEN ? `?token=${token}` : ''}`, { waitUntil: 'commit' });
    const shown = await page.waitForFunction(
      () => (document.querySelector('.vlist .row[data-name="file-000000.txt"]') ? performance.now() : false),
      null,
      { polling: 'raf', timeout: 120000 },
    );
    const t = await shown.jsonValue();
    if (cdp) {
      const { profile } = await cdp.send('Profiler.stop') as any;
      const self = new Map<string, number>();
      const dt = new Map<number, number>();
      profile.samples.forEach((id: number, i: number) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
      for (const n of profile.nodes) { const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`; self.set(k, (self.get(k) ?? 0) + (dt.get(n.id) ?? 0)); }
      console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / 1000).toFixed(1)}ms ${k}`).join('\n'));
    }
    const res = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const w = window as unknown as { __row?: number; __lt: string[] };
      const out = [
        `row inserted ${w.__row?.toFixed(0)} longtasks ${w.__lt.join(' ')}`,
        `nav req=${nav.requestStart.toFixed(0)} resp=${nav.responseStart.toFixed(0)}-${nav.responseEnd.toFixed(0)} dcl=${nav.domContentLoadedEventStart.toFixed(0)}`,
      ];
      for (const e of performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        out.push(
          `${e.name.replace(location.origin, '').slice(0, 70)} start=${e.startTime.toFixed(0)} req=${e.requestStart.toFixed(0)} ttfb=${e.responseStart.toFixed(0)} end=${e.responseEnd.toFixed(0)} size=${e.encodedBodySize}`,
        );
      return out;
    });
    console.log(`run ${run}: first row ${t.toFixed(0)} ms`);
    console.log(res.slice(0, 2).join('\n'));
    if (process.env.ALL) console.log(res.join('\n'));
    if (run === Number(process.env.RUNS ?? 4) - 1) console.log(res.join('\n'));
    await context.close();
    await new Promise((r) => setTimeout(r, 300));
  }
  await browser.close();
} finally {
  proc.kill();
}
