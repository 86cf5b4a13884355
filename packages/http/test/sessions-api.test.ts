// needs: kernel
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

let fx: TestServer;

beforeAll(async () => {
  fx = await startServer({ floodKernels: true, defaultKernelName: 'flood' });
});
afterAll(async () => {
  await fx.close();
});

type Session = {
  id: string;
  path: string;
  name: string;
  type: string;
  kernel: { id: string; name: string } | null;
  notebook?: { path: string; name: string };
};

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

const noSession = '00000000-0000-4000-8000-000000000000';

describe('/api/sessions', () => {
  it('creates with the current body, returns the existing session for the same path, deletes with its kernel', async () => {
    const res = await fx.fetch('api/sessions', {
      method: 'POST',
      json: {
        path: 'a/x.ipynb',
        name: 'x.ipynb',
        type: 'notebook',
        kernel: { name: 'flood' },
      },
    });
    expect(res.status).toBe(201);
    const s = await json<Session>(res);
    expect(res.headers.get('location')).toBe(`/api/sessions/${s.id}`);
    expect(s).toMatchObject({ path: 'a/x.ipynb', name: 'x.ipynb', type: 'notebook', kernel: { name: 'flood' } });
    expect(s.notebook).toEqual({ path: 'a/x.ipynb', name: 'x.ipynb' });

    const again = await fx.fetch('api/sessions', {
      method: 'POST',
      json: {
        path: 'a/x.ipynb',
        type: 'notebook',
        kernel: { name: 'python3' },
      },
    });
    expect(again.status).toBe(201);
    expect(await json<Session>(again)).toMatchObject({ id: s.id, kernel: { id: s.kernel?.id, name: 'flood' } });

    expect((await json<Session[]>(await fx.fetch('api/sessions'))).map((x) => x.id)).toEqual([s.id]);
    expect((await fx.fetch(`api/sessions/${s.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fx.fetch(`api/kernels/${s.kernel?.id}`)).status).toBe(404);
    expect(await json<Session[]>(await fx.fetch('api/sessions'))).toEqual([]);
  });

  it('accepts the IPython 3.x and 2.x bodies and the /api/sesions spelling', async () => {
    const v3 = await json<Session>(
      await fx.fetch('api/sessions', {
        method: 'POST',
        json: { notebook: { path: 'd/three.ipynb' }, kernel: { name: 'flood' } },
      }),
    );
    expect(v3).toMatchObject({ path: 'd/three.ipynb', name: 'three.ipynb', type: 'notebook' });
    const v2 = await json<Session>(
      await fx.fetch('api/sesions', {
        method: 'POST',
        json: { notebook: { name: 'two.ipynb', path: 'd' }, kernel: { name: 'flood' } },
      }),
    );
    expect(v2).toMatchObject({
      path: 'd/two.ipynb',
      name: 'two.ipynb',
      notebook: { path: 'd/two.ipynb', name: 'two.ipynb' },
    });
    expect((await fx.fetch(`api/sesions/${v2.id}`)).status).toBe(200);
    // A console session uses the default kernel and has no notebook mirror.
    const console = await json<Session>(
      await fx.fetch('api/sessions', { method: 'POST', json: { path: 'd/console-1', type: 'console' } }),
    );
    expect(console.kernel?.name).toBe('flood');
    expect(console).not.toHaveProperty('notebook');
    for (const s of [v3, v2, console])
      expect((await fx.fetch(`api/sessions/${s.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('patches path, name, type, and the kernel (by id or by name; the replaced kernel is shut down)', async () => {
    const s = await json<Session>(
      await fx.fetch('api/sessions', {
        method: 'POST',
        json: { path: 'p.ipynb', type: 'notebook', kernel: { name: 'flood' } },
      }),
    );
    const renamed = await json<Session>(
      await fx.fetch(`api/sessions/${s.id}`, { method: 'PATCH', json: { path: 'q.ipynb', name: 'q.ipynb' } }),
    );
    expect(renamed).toMatchObject({ path: 'q.ipynb', name: 'q.ipynb', kernel: { id: s.kernel?.id } });

    const other = await json<{ id: string }>(
      await fx.fetch('api/kernels', { method: 'POST', json: { name: 'flood' } }),
    );
    const attached = await json<Session>(
      await fx.fetch(`api/sessions/${s.id}`, { method: 'PATCH', json: { kernel: { id: other.id } } }),
    );
    expect(attached.kernel?.id).toBe(other.id);
    expect((await fx.fetch(`api/kernels/${s.kernel?.id}`)).status).toBe(404);

    const fresh = await json<Session>(
      await fx.fetch(`api/sessions/${s.id}`, { method: 'PATCH', json: { kernel: { name: 'flood' } } }),
    );
    expect(fresh.kernel?.id).not.toBe(other.id);
    expect((await fx.fetch(`api/kernels/${other.id}`)).status).toBe(404);
    expect((await fx.fetch(`api/sessions/${s.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it("starts a kernel by name when a create names a kernel id that is not running; 'python' means python3", async () => {
    // Notebook 6's own test body: the deprecated notebook field, a placeholder id, the old name.
    const deprecated = await fx.fetch('api/sessions', {
      method: 'POST',
      json: {
        notebook: { path: 'dep/nb1.ipynb' },
        kernel: { name: 'python', id: 'foo' },
      },
    });
    expect(deprecated.status).toBe(201);
    const old = await json<Session>(deprecated);
    expect(old).toMatchObject({ path: 'dep/nb1.ipynb', type: 'notebook', notebook: { path: 'dep/nb1.ipynb' } });
    expect(old.kernel?.name).toBe('python3');
    expect(old.kernel?.id).not.toBe('foo');
    // The session as created is the session as listed and fetched.
    expect(await json<Session[]>(await fx.fetch('api/sessions'))).toEqual([old]);
    expect(await json<Session>(await fx.fetch(`api/sessions/${old.id}`))).toEqual(old);

    const stale = await json<Session>(
      await fx.fetch('api/sessions', {
        method: 'POST',
        json: {
          path: 'stale.ipynb',
          type: 'notebook',
          kernel: { id: noSession, name: 'flood' },
        },
      }),
    );
    expect(stale.kernel).toMatchObject({ name: 'flood' });
    expect(stale.kernel?.id).not.toBe(noSession);

    // An update must name a running kernel.
    const patch = await fx.fetch(`api/sessions/${stale.id}`, { method: 'PATCH', json: { kernel: { id: noSession } } });
    expect(patch.status).toBe(400);
    expect(await json<Record<string, unknown>>(patch)).toMatchObject({ message: `No such kernel: ${noSession}` });
    expect((await json<Session>(await fx.fetch(`api/sessions/${stale.id}`))).kernel?.id).toBe(stale.kernel?.id);

    const renamed = await json<Session>(
      await fx.fetch(`api/sessions/${stale.id}`, { method: 'PATCH', json: { kernel: { name: 'python' } } }),
    );
    expect(renamed.kernel?.name).toBe('python3');
    for (const s of [old, stale])
      expect((await fx.fetch(`api/sessions/${s.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('drops sessions whose kernel went away', async () => {
    const s = await json<Session>(
      await fx.fetch('api/sessions', {
        method: 'POST',
        json: { path: 'gone.ipynb', type: 'notebook', kernel: { name: 'flood' } },
      }),
    );
    expect((await fx.fetch(`api/kernels/${s.kernel?.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await json<Session[]>(await fx.fetch('api/sessions'))).toEqual([]);
    expect((await fx.fetch(`api/sessions/${s.id}`)).status).toBe(404);
  });

  it('answers bad input with Jupyter errors and starts nothing', async () => {
    const kernelsBefore = fx.app.services.kernels.list().length;
    const cases: Array<[string, string, unknown, number, Record<string, unknown>]> = [
      ['POST', 'api/sessions', undefined, 400, { message: 'No JSON data provided' }],
      ['POST', 'api/sessions', '{bad', 400, { message: 'Invalid JSON in body of request' }],
      ['POST', 'api/sessions', '[]', 400, { message: 'The request body must be a JSON object' }],
      ['POST', 'api/sessions', { type: 'notebook' }, 400, { message: 'Missing field in JSON data: path' }],
      ['POST', 'api/sessions', { path: 'x.ipynb' }, 400, { message: 'Missing field in JSON data: type' }],
      ['POST', 'api/sessions', { path: 7, type: 'notebook' }, 400, {}],
      ['POST', 'api/sessions', { path: 'x.ipynb', type: 'notebook', kernel: 'python3' }, 400, {}],
      [
        'POST',
        'api/sessions',
        { path: 'x.ipynb', type: 'notebook', kernel: { name: 'nope' } },
        501,
        { short_message: 'nope not found', message: expect.stringContaining("The 'nope' kernel is not available") },
      ],
      ['GET', `api/sessions/${noSession}`, undefined, 404, { message: `Session not found: session_id='${noSession}'` }],
      ['PATCH', `api/sessions/${noSession}`, { path: 'y' }, 404, {}],
      ['DELETE', `api/sessions/${noSession}`, undefined, 404, {}],
      ['GET', 'api/sessions/not-a-uuid', undefined, 404, {}],
    ];
    for (const [method, path, body, status, expected] of cases) {
      const res = await fx.fetch(path, { method, ...(typeof body === 'string' ? { body } : { json: body }) });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
      const payload = await json<Record<string, unknown>>(res);
      expect(payload).toMatchObject(expected);
      expect(payload).toHaveProperty('message');
      expect(JSON.stringify(payload)).not.toContain(TOKEN);
    }
    expect(fx.app.services.kernels.list().length).toBe(kernelsBefore);
    expect(await json<Session[]>(await fx.fetch('api/sessions'))).toEqual([]);
  });
});
