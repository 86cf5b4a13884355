import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { advanceClock, useRealClock, useTestClock } from '../../../testing/clock.js';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { serve } from '../src/serve.js';

const auth = { Authorization: `token ${TOKEN}` };
const url = (p: string) => `http://localhost${p}`;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describe('/api/status and /api/me', () => {
  let f: TestApp;
  beforeAll(async () => {
    f = await createTestApp();
  });
  afterAll(() => f.close());

  it('status has sorted keys, Jupyter timestamps and live counts', async () => {
    f.app.services.activity.countKernels = () => 3;
    f.app.services.activity.countConnections = () => 2;
    const res = await f.app.request(url('/api/status'), { headers: auth });
    const text = await res.text();
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(['connections', 'kernels', 'last_activity', 'started']);
    expect(body).toMatchObject({ connections: 2, kernels: 3 });
    expect(body.started).toMatch(ISO);
    expect(body.last_activity).toMatch(ISO);
  });

  it('polling status does not count as activity; other API calls do', async () => {
    useTestClock();
    onTestFinished(useRealClock);
    const first = await (await f.app.request(url('/api/status'), { headers: auth })).json();
    advanceClock(1000);
    const second = await (await f.app.request(url('/api/status'), { headers: auth })).json();
    expect(second.last_activity).toBe(first.last_activity);
    await f.app.request(url('/api/me'), { headers: auth });
    const third = await (await f.app.request(url('/api/status'), { headers: auth })).json();
    expect(third.last_activity > first.last_activity).toBe(true);
  });

  it('GET /api/me returns the identity and the permissions asked about', async () => {
    const q = encodeURIComponent(JSON.stringify({ contents: ['read', 'write'], kernels: ['execute'] }));
    const res = await f.app.request(url(`/api/me?permissions=${q}`), { headers: auth });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.identity).toEqual({
      username: expect.stringMatching(/^[0-9a-f]{32}$/),
      name: expect.stringMatching(/^Anonymous /),
      display_name: expect.stringMatching(/^Anonymous /),
      initials: expect.stringMatching(/^A[A-Z]$/),
      avatar_url: null,
      color: null,
    });
    expect(body.permissions).toEqual({
      contents: ['read', 'write'],
      kernels: ['execute'],
      updatable_fields: ['color'],
    });
  });

  it.each(['{bad', '[1]', '{"a":"read"}', '{"a":[1]}'])('bad permissions %s -> 400', async (raw) => {
    const res = await f.app.request(url(`/api/me?permissions=${encodeURIComponent(raw)}`), { headers: auth });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: expect.stringContaining('permissions'), reason: null });
  });

  it('PATCH /api/me updates the color', async () => {
    const res = await f.app.request(url('/api/me'), {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"color":"#ff8800"}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'success', identity: { color: '#ff8800' } });
    const again = await (await f.app.request(url('/api/me'), { headers: auth })).json();
    expect(again.identity.color).toBe('#ff8800');
  });

  it.each(['{"name":"x"}', '{"color":"<script>"}', '{"color":5}', 'nope'])(
    'PATCH /api/me with %s -> 400 and nothing changes',
    async (body) => {
      const res = await f.app.request(url('/api/me'), {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(400);
      const me = await (await f.app.request(url('/api/me'), { headers: auth })).json();
      expect(me.identity.color).toBe('#ff8800');
      expect(me.identity.name).toMatch(/^Anonymous /);
    },
  );
});

describe('POST /api/shutdown', () => {
  it('answers, closes the services and stops the real server', async () => {
    const f = await createTestApp();
    const running = await serve({
      root: `${f.dir}/root`,
      configDir: `${f.dir}/config`,
      dataDir: `${f.dir}/data`,
      token: TOKEN,
      logger: f.logger,
      port: 0,
    });
    let servicesClosed = false;
    const originalClose = running.app.services.close.bind(running.app.services);
    Object.assign(running.app.services, {
      close: async () => {
        servicesClosed = true;
        await originalClose();
      },
    });
    try {
      const forbidden = await fetch(`${running.url}api/shutdown`, { method: 'POST' });
      expect(forbidden.status).toBe(403);
      const res = await fetch(`${running.url}api/shutdown`, { method: 'POST', headers: auth });
      expect(res.status).toBe(200);
      await running.closed;
      expect(servicesClosed).toBe(true);
      await expect(fetch(`${running.url}api`)).rejects.toThrow();
    } finally {
      await running.close();
      await f.close();
    }
  });
});
