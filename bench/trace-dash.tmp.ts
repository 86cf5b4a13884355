import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { launchChromium } from '../testing/chromium.js';

const port = 18932,
  token = 'tok123';
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
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
try {
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${origin}/api`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const browser = await launchChromium();
  for (let run = 0; run < 3; run++) {
    const context = await browser.newContext({
      extraHTTPHeaders: { authorization: `token ${token}` },
      viewport: { width: 1280, height: 900 },
    });
    const page = await context.newPage();
    if (run === 2)
      await browser.startTracing(page, {
        path: '/tmp/dash-trace.json',
        categories: ['devtools.timeline', 'v8.execute', 'disabled-by-default-devtools.timeline'],
      });
    await page.goto(`${origin}/tree/big`, { waitUntil: 'commit' });
    const shown = await page.waitForFunction(
      () => (document.querySelector('.vlist .row[data-name="file-000000.txt"]') ? performance.now() : false),
      null,
      { polling: 'raf', timeout: 120000 },
    );
    console.log('row', await shown.jsonValue());
    if (run === 2) await browser.stopTracing();
    await page.waitForFunction(() => (document.querySelector('.vlist')?.scrollHeight ?? 0) >= 1e6, null, {
      timeout: 120000,
    });
    await context.close();
  }
  await browser.close();
} finally {
  proc.kill();
}
const trace = JSON.parse(readFileSync('/tmp/dash-trace.json', 'utf8'));
const events = (trace.traceEvents ?? trace) as {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  tid: number;
  args?: any;
}[];
const nav =
  events.find((e) => e.name === 'navigationStart' || e.name === 'NavigationTiming')?.ts ??
  Math.min(...events.filter((e) => e.ts > 0).map((e) => e.ts));
const main = events.filter(
  (e) =>
    e.ph === 'X' &&
    (e.dur ?? 0) > 3000 &&
    [
      'RunTask',
      'EvaluateScript',
      'v8.compile',
      'FunctionCall',
      'ParseHTML',
      'UpdateLayoutTree',
      'Layout',
      'Paint',
      'ParseAuthorStyleSheet',
      'v8.evaluateModule',
      'TimerFire',
      'FireAnimationFrame',
      'XHRLoad',
      'ResourceReceivedData',
      'EventDispatch',
      'v8.run',
      'CompileScript',
      'Commit',
      'PrePaint',
      'Layerize',
    ].includes(e.name),
);
for (const e of main.sort((a, b) => a.ts - b.ts))
  console.log(
    ((e.ts - nav) / 1000).toFixed(0).padStart(6),
    ((e.dur ?? 0) / 1000).toFixed(1).padStart(6),
    e.tid,
    e.name,
    JSON.stringify(e.args?.data?.url ?? e.args?.data?.functionName ?? '').slice(0, 60),
  );
