// needs: kernel
/**
 * `GET /metrics` scraped over a real socket and read with a Prometheus text parser: jupyter_server's
 * metric and label names, values that move as requests are made, kernels start and stop and
 * WebSockets open and close; auth on and off; under a base URL (base-url-matrix.test.ts runs it
 * under every entry of the matrix).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { WebSocket } from 'ws';
import { advanceClock, useRealClock, useTestClock } from '../../../testing/clock.js';
import { openCollabClient } from '../../../testing/collaboration.js';
import { v4Notebook } from '../../../testing/notebooks.js';
import { Scrape, scrape } from '../../../testing/prometheus.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';
import { renderExposition } from '../src/metrics/exposition.js';

const REQUESTS = 'http_request_duration_seconds';
const KERNELS = 'kernel_currently_running_total';

/** Polls until `check` passes (kernel and socket counts settle asynchronously). */
async function eventually(check: () => Promise<void>, timeoutMs = 20_000): Promise<void> {
  let failure: unknown;
  const passes = () =>
    check().then(
      () => true,
      (error: unknown) => {
        failure = error;
        return false;
      },
    );
  await waitFor(passes, { timeoutMs, intervalMs: 50 }).catch(() => {
    throw failure;
  });
}

describe('GET /metrics', () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startServer({ baseUrl: '/user/a%40b/' });
    await fs.writeFile(path.join(s.root, 'private-name.txt'), 'x');
  });
  afterAll(async () => {
    await s?.close();
  });

  it("serves jupyter_server's metrics, the process metrics and the open WebSockets, with their types and help", async () => {
    const m = await scrape(s.fetch);
    const types = Object.fromEntries([...m.families.values()].map((f) => [f.name, f.type]));
    expect(types).toMatchObject({
      [REQUESTS]: 'HISTOGRAM',
      [KERNELS]: 'GAUGE',
      terminal_currently_running_total: 'GAUGE',
      jupyter_server_started_timestamp_seconds: 'GAUGE',
      jupyter_server_last_activity_timestamp_seconds: 'GAUGE',
      jupyter_server_active_duration_seconds: 'GAUGE',
      nbserve_open_websockets: 'GAUGE',
      process_cpu_seconds_total: 'COUNTER',
      process_start_time_seconds: 'GAUGE',
      process_resident_memory_bytes: 'GAUGE',
      process_virtual_memory_bytes: 'GAUGE',
      process_heap_bytes: 'GAUGE',
      process_open_fds: 'GAUGE',
      process_max_fds: 'GAUGE',
      nodejs_heap_size_used_bytes: 'GAUGE',
    });
    expect(m.family(REQUESTS).help).toBe('duration in seconds for all HTTP requests');
    expect(m.family(KERNELS).help).toBe('counter for how many kernels are running labeled by type');
    expect(m.family('terminal_currently_running_total').help).toBe('counter for how many terminals are running');
    expect(m.value('process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
    expect(m.value('process_open_fds')).toBeGreaterThan(0);
    expect(m.value('process_start_time_seconds')).toBeLessThanOrEqual(Date.now() / 1000);
    expect(m.value('jupyter_server_started_timestamp_seconds')).toBeGreaterThan(Date.now() / 1000 - 600);
    expect(m.value('terminal_currently_running_total')).toBe(0);
    expect(m.value('nbserve_open_websockets', { kind: 'kernel' })).toBe(0);
  });

  it('counts requests by method, route pattern and status, with the Python client buckets', async () => {
    const labels = { method: 'GET', handler: '/api/contents/*', status_code: '200' };
    const before = (await scrape(s.fetch)).count(REQUESTS, labels);
    for (let i = 0; i < 3; i++)
      expect((await s.fetch(`api/contents/private-name.txt?token=${s.token}`)).status).toBe(200);
    expect((await s.fetch('api/contents/missing.txt')).status).toBe(404);
    expect((await s.fetch('no/such/page')).status).toBe(404);
    const m = await scrape(s.fetch);
    expect(m.count(REQUESTS, labels)).toBe(before + 3);
    expect(m.count(REQUESTS, { ...labels, status_code: '404' })).toBeGreaterThanOrEqual(1);
    expect(m.count(REQUESTS, { method: 'GET', handler: '*', status_code: '404' })).toBeGreaterThanOrEqual(1);
    const series = m.histogram(REQUESTS, labels);
    expect(Object.keys(series?.buckets ?? {})).toEqual([
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.075',
      '0.1',
      '0.25',
      '0.5',
      '0.75',
      '1.0',
      '2.5',
      '5.0',
      '7.5',
      '10.0',
      '+Inf',
    ]);
    expect(series?.buckets['+Inf']).toBe(series?.count);
    expect(series?.sum).toBeGreaterThan(0);
    // Bounded labels: route patterns only, never a file name, a token or the base URL.
    const handlers = m.labelValues(`${REQUESTS}_count`, 'handler');
    expect(handlers).toContain('/metrics');
    for (const handler of handlers) expect(handler.startsWith('/') || handler === '*').toBe(true);
    expect(m.text).not.toContain('private-name');
    expect(m.text).not.toContain('missing.txt');
    expect(m.text).not.toContain(s.token);
    expect(m.text).not.toContain('a%40b');
  });

  it('labels a refused request with the route it was meant for', async () => {
    expect((await s.fetch('api/kernels', { auth: false })).status).toBe(403);
    const m = await scrape(s.fetch);
    expect(m.count(REQUESTS, { method: 'GET', handler: '/api/kernels', status_code: '403' })).toBe(1);
  });

  it('follows kernels by kernelspec name as they start and stop, and their WebSockets as they open and close', async () => {
    const start = async (name: string) => {
      const res = await s.fetch('api/kernels', { method: 'POST', body: JSON.stringify({ name }) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const js = await start('javascript');
    const py = await start('python3');
    let m = await scrape(s.fetch);
    expect(m.value(KERNELS, { type: 'javascript' })).toBe(1);
    expect(m.value(KERNELS, { type: 'python3' })).toBe(1);

    const ws = new WebSocket(s.wsUrl(`api/kernels/${js}/channels?session_id=metrics-test`), {
      headers: { authorization: `token ${s.token}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    m = await scrape(s.fetch);
    expect(m.value('nbserve_open_websockets', { kind: 'kernel' })).toBe(1);
    expect(m.count(REQUESTS, { method: 'GET', handler: '/api/kernels/:kernel_id/channels', status_code: '101' })).toBe(
      1,
    );
    ws.close();
    await eventually(async () => {
      expect((await scrape(s.fetch)).value('nbserve_open_websockets', { kind: 'kernel' })).toBe(0);
    });

    expect((await s.fetch(`api/kernels/${py}`, { method: 'DELETE' })).status).toBe(204);
    m = await scrape(s.fetch);
    expect(m.value(KERNELS, { type: 'python3' })).toBe(0);
    expect(m.sample(KERNELS, { type: 'python3' })).toBe(0); // the series stays, at 0, as in jupyter_server
    expect(m.value(KERNELS, { type: 'javascript' })).toBe(1);
    expect((await s.fetch(`api/kernels/${js}`, { method: 'DELETE' })).status).toBe(204);
    expect((await scrape(s.fetch)).value(KERNELS, { type: 'javascript' })).toBe(0);
  }, 120_000);

  it('reads the terminal count from the hook a terminal manager sets', async () => {
    const { metrics } = s.app.services;
    let running = 2;
    metrics.countTerminals = () => running;
    try {
      expect((await scrape(s.fetch)).value('terminal_currently_running_total')).toBe(2);
      running = 0;
      expect((await scrape(s.fetch)).value('terminal_currently_running_total')).toBe(0);
    } finally {
      metrics.countTerminals = undefined;
    }
  });

  it("counts a shared document's WebSockets while they are open", async () => {
    await fs.writeFile(path.join(s.root, 'shared.ipynb'), JSON.stringify(v4Notebook([])));
    const client = await openCollabClient(s.url, 'shared.ipynb');
    try {
      expect((await scrape(s.fetch)).value('nbserve_open_websockets', { kind: 'collaboration' })).toBe(1);
    } finally {
      client.close();
    }
    await eventually(async () => {
      expect((await scrape(s.fetch)).value('nbserve_open_websockets', { kind: 'collaboration' })).toBe(0);
    });
  });

  it('a scrape is not activity: the last-activity time stays put', async () => {
    await s.fetch('api/contents');
    useTestClock();
    onTestFinished(useRealClock);
    const first = (await scrape(s.fetch)).value('jupyter_server_last_activity_timestamp_seconds');
    advanceClock(1000);
    const second = (await scrape(s.fetch)).value('jupyter_server_last_activity_timestamp_seconds');
    expect(second).toBe(first);
    const status = (await (await s.fetch('api/status')).json()) as { last_activity: string };
    expect(Date.parse(status.last_activity) / 1000).toBe(first);
  });
});

describe('who may read /metrics', () => {
  let s: TestServer;
  afterEach(async () => {
    await s?.close();
  });

  it('needs the token (header or query) or the login cookie; without, 403 and no login redirect', async () => {
    s = await startServer({ baseUrl: '/nb/' });
    for (const send of [s.fetch, s.request]) {
      const refused = await send('metrics', { auth: false, headers: { accept: 'text/html' } });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('location')).toBeNull();
      expect(await refused.text()).not.toContain('# TYPE');
      await scrape(send);
      await scrape((relative, init) => send(`${relative}?token=${s.token}`, { ...init, auth: false }));
      await scrape(send, { headers: { authorization: `Bearer ${s.token}` } });
    }
    const login = await s.fetch(`tree?token=${s.token}`, {
      auth: false,
      headers: { accept: 'text/html', 'sec-fetch-mode': 'navigate' },
    });
    const cookie = login.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    expect(cookie).toMatch(/username-/);
    await scrape(s.fetch, { auth: false, headers: { cookie } });
    expect((await s.fetch('metrics', { auth: false, headers: { authorization: 'token wrong' } })).status).toBe(403);
  });

  it('is open to anyone with authenticateMetrics off, while the API stays closed', async () => {
    s = await startServer({ baseUrl: '/nb/', authenticateMetrics: false });
    const m = await scrape(s.fetch, { auth: false });
    expect(m.families.has(REQUESTS)).toBe(true);
    expect((await s.fetch('api/contents', { auth: false })).status).toBe(403);
  });
});

describe('the exposition itself', () => {
  it('escapes label values and help text so that a parser reads them back', () => {
    const text = renderExposition([
      {
        name: 'x_total',
        help: 'help with a \\ backslash\nand a newline',
        type: 'counter',
        samples: [{ name: 'x_total', labels: { path: 'a "quoted" \\ value\nnext' }, value: 1.5 }],
      },
      { name: 'y', help: 'odd values', type: 'gauge', samples: [{ name: 'y', value: Number.POSITIVE_INFINITY }] },
    ]);
    const m = new Scrape(text);
    expect(m.family('x_total').help).toBe('help with a \\ backslash\nand a newline');
    expect(m.value('x_total', { path: 'a "quoted" \\ value\nnext' })).toBe(1.5);
    expect(m.value('y')).toBe(Number.POSITIVE_INFINITY);
  });
});
