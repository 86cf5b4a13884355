import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

const SCHEMA = 'https://events.jupyter.org/jupyter_server/contents_service/v1';

/** A subscriber of the event bus, keeping every event it got. */
async function subscribe(s: TestServer, headers: Record<string, string> = {}) {
  const ws = new WebSocket(s.wsUrl('api/events/subscribe'), {
    headers: { authorization: `token ${TOKEN}`, ...headers },
  });
  const events: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => events.push(JSON.parse(String(data)) as Record<string, unknown>));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, events };
}

describe('/api/events/subscribe', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it("emits contents events on create, upload, save, copy, rename, delete and get, as jupyter_server's", async () => {
    const { ws, events } = await subscribe(s);
    const put = (path: string) =>
      s.fetch(`api/contents/${path}`, { method: 'PUT', json: { type: 'file', format: 'text', content: 'x' } });
    expect((await put('a.txt')).status).toBe(201);
    expect((await put('a.txt')).status).toBe(200);
    expect((await s.fetch('api/contents', { method: 'POST', json: { copy_from: 'a.txt' } })).status).toBe(201);
    expect((await s.fetch('api/contents', { method: 'POST', json: { type: 'directory' } })).status).toBe(201);
    expect((await s.fetch('api/contents/a.txt', { method: 'PATCH', json: { path: 'b.txt' } })).status).toBe(200);
    expect((await s.fetch('api/contents/b.txt', { method: 'DELETE' })).status).toBe(204);
    expect((await s.fetch('api/contents/b.txt')).status).toBe(404);
    expect((await s.fetch('api/contents/a-Copy1.txt?content=0')).status).toBe(200);
    await waitFor(() => events.length >= 7, { what: 'seven events' });
    expect(events).toEqual([
      { schema_id: SCHEMA, action: 'upload', path: 'a.txt' },
      { schema_id: SCHEMA, action: 'save', path: 'a.txt' },
      { schema_id: SCHEMA, action: 'copy', path: 'a-Copy1.txt', source_path: 'a.txt' },
      { schema_id: SCHEMA, action: 'create', path: 'Untitled Folder' },
      { schema_id: SCHEMA, action: 'rename', path: 'b.txt', source_path: 'a.txt' },
      { schema_id: SCHEMA, action: 'delete', path: 'b.txt' },
      { schema_id: SCHEMA, action: 'get', path: 'a-Copy1.txt' },
    ]);
    ws.close();
    await waitFor(() => s.app.services.events.listenerCount === 0, { what: 'unsubscribed' });
  });

  it('sends nothing for a failed request', async () => {
    const { ws, events } = await subscribe(s);
    expect((await s.fetch('api/contents/missing.txt', { method: 'DELETE' })).status).toBe(404);
    expect(
      (await s.fetch('api/contents/x.txt', { method: 'PUT', json: { type: 'file', format: 'text', content: 5 } }))
        .status,
    ).toBe(400);
    await s.fetch('api/contents/c.txt', { method: 'PUT', json: { type: 'file', format: 'text', content: '' } });
    await waitFor(() => events.length >= 1, { what: 'one event' });
    expect(events).toEqual([{ schema_id: SCHEMA, action: 'upload', path: 'c.txt' }]);
    ws.close();
  });

  it('refuses a socket from another origin and one without credentials', async () => {
    await expect(subscribe(s, { origin: 'https://evil.example' })).rejects.toThrow(/403/);
    const anonymous = new WebSocket(s.wsUrl('api/events/subscribe'));
    await expect(
      new Promise((resolve, reject) => {
        anonymous.once('open', resolve);
        anonymous.once('error', reject);
      }),
    ).rejects.toThrow(/403/);
  });

  it('answers a plain GET with a 400', async () => {
    const res = await s.fetch('api/events/subscribe');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: expect.any(String) });
  });
});
