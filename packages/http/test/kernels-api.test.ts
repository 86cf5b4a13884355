// needs: kernel
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { promisify } from 'node:util';
import { isProcessAlive } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { makeTempDir } from '../../../testing/temp.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

let fx: TestServer;

beforeAll(async () => {
  fx = await startServer({ floodKernels: true, kernelInfoTimeout: 10 });
  // A kernelspec whose program does not exist.
  mkdirSync(nodePath.join(fx.kernelsDir, 'missing'), { recursive: true });
  writeFileSync(
    nodePath.join(fx.kernelsDir, 'missing', 'kernel.json'),
    JSON.stringify({
      argv: ['/nonexistent/bin/kernel', '-f', '{connection_file}'],
      display_name: 'Missing',
      language: 'none',
    }),
  );
});
afterAll(async () => {
  await fx.close();
});

/** Both transports: in-process `app.request` and the real socket. */
const transports = TRANSPORTS.map((name) => ({
  name,
  request: (method: string, path: string, body?: unknown) =>
    fx.send(name)(path, {
      method,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    }),
}));

const noKernel = '00000000-0000-4000-8000-000000000000';

for (const t of transports) {
  describe(`/api/kernels over ${t.name}`, () => {
    it('starts, lists, gets, interrupts, restarts and deletes a kernel', async () => {
      const created = await t.request('POST', 'api/kernels', { name: 'flood', path: 'no/such/dir/nb.ipynb' });
      expect(created.status).toBe(201);
      const model = (await created.json()) as {
        id: string;
        name: string;
        execution_state: string;
        connections: number;
      };
      expect(created.headers.get('location')).toBe(`/api/kernels/${model.id}`);
      // Answered once the process runs, as jupyter_server 2.x; idle once it answered kernel_info.
      expect(model).toMatchObject({ name: 'flood', execution_state: 'starting', connections: 0 });
      await waitFor(
        async () =>
          ((await (await t.request('GET', `api/kernels/${model.id}`)).json()) as { execution_state: string })
            .execution_state === 'idle',
        { timeoutMs: 60_000 },
      );
      expect(((await (await t.request('GET', 'api/kernels')).json()) as { id: string }[]).map((k) => k.id)).toContain(
        model.id,
      );
      expect((await t.request('GET', `api/kernels/${model.id}`)).status).toBe(200);
      expect((await t.request('POST', `api/kernels/${model.id}/interrupt`)).status).toBe(204);
      const restarted = await t.request('POST', `api/kernels/${model.id}/restart`);
      expect(restarted.status).toBe(200);
      expect(await restarted.json()).toMatchObject({ id: model.id, execution_state: 'idle' });
      expect((await t.request('DELETE', `api/kernels/${model.id}`)).status).toBe(204);
      expect((await t.request('GET', `api/kernels/${model.id}`)).status).toBe(404);
    });

    it('answers bad input with 4xx Jupyter errors and changes nothing', async () => {
      const before = fx.app.services.kernels.list().length;
      const cases: Array<[string, string, unknown, number, RegExp]> = [
        ['GET', `api/kernels/${noKernel}`, undefined, 404, /Kernel does not exist/],
        ['DELETE', `api/kernels/${noKernel}`, undefined, 404, /Kernel does not exist/],
        ['POST', `api/kernels/${noKernel}/interrupt`, undefined, 404, /Kernel does not exist/],
        ['POST', `api/kernels/${noKernel}/restart`, undefined, 404, /Kernel does not exist/],
        ['GET', 'api/kernels/not-a-uuid', undefined, 404, /Kernel does not exist/],
        ['POST', 'api/kernels', { name: 'nope' }, 404, /No such kernel named nope/],
        ['POST', 'api/kernels', '{"name":', 400, /Invalid JSON/],
        ['POST', 'api/kernels', '[1,2]', 400, /JSON object/],
        ['POST', 'api/kernels', { name: 42 }, 400, /name must be a string/],
        ['POST', 'api/kernels', { name: 'flood', path: '../../etc' }, 400, /Invalid kernel path/],
        ['POST', 'api/kernels', { kernel_id: 'x' }, 400, /kernel_id must be a uuid/],
        ['GET', 'api/kernelspecs/nope', undefined, 404, /Kernel spec nope not found/],
        ['GET', 'kernelspecs/python3/nope.png', undefined, 404, /not found/],
        ['GET', 'kernelspecs/python3/..%2Fpython3%2Fkernel.json', undefined, 404, /not found/],
        ['GET', 'kernelspecs/nope/logo-64x64.png', undefined, 404, /not found/],
      ];
      for (const [method, path, body, status, message] of cases) {
        const res = await t.request(method, path, body);
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(status);
        const json = (await res.json()) as { message: string; reason: string | null };
        expect(json.message, `${method} ${path}`).toMatch(message);
        expect(json).toHaveProperty('reason');
        expect(JSON.stringify(json)).not.toContain(TOKEN);
      }
      expect(fx.app.services.kernels.list().length).toBe(before);
    });

    it('lists kernelspecs in the REST shape and serves their resources (GET and HEAD)', async () => {
      const listing = (await (await t.request('GET', 'api/kernelspecs')).json()) as {
        default: string;
        kernelspecs: Record<string, { name: string; spec: Record<string, unknown>; resources: Record<string, string> }>;
      };
      expect(listing.default).toBe('python3');
      expect(Object.keys(listing.kernelspecs.python3?.spec ?? {}).sort()).toEqual(
        ['argv', 'display_name', 'env', 'interrupt_mode', 'language', 'metadata'].sort(),
      );
      expect(listing.kernelspecs.python3?.resources['logo-svg']).toBe('/kernelspecs/python3/logo-svg.svg');
      const one = await t.request('GET', 'api/kernelspecs/PYTHON3');
      expect(one.status).toBe(200);
      expect(await one.json()).toMatchObject({ name: 'python3', spec: { language: 'python' } });
      const svg = await t.request('GET', 'kernelspecs/python3/logo-svg.svg');
      expect(svg.status).toBe(200);
      expect(svg.headers.get('content-type')).toBe('image/svg+xml');
      expect(svg.headers.get('content-security-policy')).toContain('sandbox');
      const head = await t.request('HEAD', 'kernelspecs/python3/logo-64x64.png');
      expect(head.status).toBe(200);
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    });

    it('requires authentication', async () => {
      const res = await fx.app.request('http://localhost/api/kernels');
      expect(res.status).toBe(403);
      const sock = await fetch(`${fx.url}api/kernelspecs`);
      expect(sock.status).toBe(403);
    });
  });
}

describe('kernel start failures', () => {
  it('a kernel that never answers kernel_info: logged and removed after the timeout, no process left', async () => {
    const started = Date.now();
    const res = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'mute' } });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await waitFor(async () => (await fx.fetch(`api/kernels/${id}`)).status === 404, { timeoutMs: 40_000 });
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(fx.logger.lines).toContainEqual(
      expect.stringContaining(
        `Kernel mute (${id}) failed to start: Kernel mute did not answer kernel_info_request within 10 s`,
      ),
    );
    expect(fx.app.services.kernels.list()).toEqual([]);
    expect(
      readdirSync(fx.runtimeDir).filter((f) => f.startsWith('kernel-') || f.startsWith('nbserve-kernel-')),
    ).toEqual([]);
    const mutePids = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return (
            isProcessAlive(Number(p)) &&
            procCmdline(p).includes('flood-kernel.ts') &&
            procCmdline(p).includes('--mute') &&
            procCmdline(p).includes(fx.runtimeDir)
          );
        } catch {
          return false;
        }
      });
    expect(mutePids).toEqual([]);
  });

  it('a kernel shut down or restarted while it starts: no failure logged, restart answers once idle', async () => {
    const deleted = (await (await fx.fetch('api/kernels', { method: 'POST', json: { name: 'slow' } })).json()) as {
      id: string;
    };
    const pid = fx.app.services.kernels.get(deleted.id).process?.pid as number;
    expect((await fx.fetch(`api/kernels/${deleted.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fx.fetch(`api/kernels/${deleted.id}`)).status).toBe(404);
    expect(isProcessAlive(pid)).toBe(false);
    const restarted = (await (await fx.fetch('api/kernels', { method: 'POST', json: { name: 'slow' } })).json()) as {
      id: string;
    };
    const res = await fx.fetch(`api/kernels/${restarted.id}/restart`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: restarted.id, execution_state: 'idle' });
    expect((await fx.fetch(`api/kernels/${restarted.id}`, { method: 'DELETE' })).status).toBe(204);
    // Only these two kernels: the mute kernel of the test before logged its failure on this server.
    const mine = (w: string) => w.includes(deleted.id) || w.includes(restarted.id);
    expect(fx.logger.lines.filter((w) => w.includes('failed to start') && mine(w))).toEqual([]);
  });

  it('an interrupt right after the start waits for the kernel instead of killing it (Notebook 6.4 test_main_kernel_handler)', async () => {
    const res = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    const { id } = (await res.json()) as { id: string };
    expect((await fx.fetch(`api/kernels/${id}/interrupt`, { method: 'POST' })).status).toBe(204);
    const after = await fx.fetch(`api/kernels/${id}`);
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ id, execution_state: 'idle' });
    expect((await fx.fetch(`api/kernels/${id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('a kernelspec whose program does not exist: clear 503, server keeps serving', async () => {
    const res = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'missing' } });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      message: 'Error starting kernel missing: /nonexistent/bin/kernel was not found',
    });
    expect((await fx.fetch('api/kernels')).status).toBe(200);
  });
});

describe('kernelspecs installed while the server runs', () => {
  type Spec = { name: string; spec: { display_name: string; language: string }; resources: Record<string, string> };
  let late: TestServer;
  let dataHome: string;
  /** JUPYTER_DATA_DIR of the user who installs specs: it does not exist when the server starts. */
  let dataDir: string;

  beforeAll(async () => {
    dataHome = await makeTempDir('nbserve-late-specs-');
    dataDir = nodePath.join(dataHome, 'share', 'jupyter');
    late = await startServer({
      floodKernels: true,
      kernelSpecDirs: [nodePath.join(dataDir, 'kernels'), '/usr/share/jupyter/kernels'],
    });
  });
  afterAll(async () => {
    await late.close();
    await rm(dataHome, { recursive: true, force: true });
  });

  const listing = async () =>
    ((await (await late.fetch('api/kernelspecs')).json()) as { kernelspecs: Record<string, Spec> }).kernelspecs;

  it('lists and starts a spec from `python3 -m ipykernel install --user` into a new data directory', async () => {
    expect(Object.keys(await listing())).not.toContain('pylate');
    await promisify(execFile)(
      '/usr/bin/python3',
      ['-Xfrozen_modules=off', '-m', 'ipykernel', 'install', '--user', '--name', 'PyLate', '--display-name', 'Py late'],
      { env: { ...process.env, JUPYTER_DATA_DIR: dataDir, HOME: dataHome, PYDEVD_DISABLE_FILE_VALIDATION: '1' } },
    );
    const spec = (await listing()).pylate;
    expect(spec).toMatchObject({ name: 'pylate', spec: { display_name: 'Py late', language: 'python' } });
    expect(spec?.resources['logo-64x64']).toBe('/kernelspecs/pylate/logo-64x64.png');
    const started = await late.fetch('api/kernels', { method: 'POST', json: { name: 'PyLate' } });
    expect(started.status).toBe(201);
    const kernel = (await started.json()) as { id: string; name: string; execution_state: string };
    expect(kernel).toMatchObject({ name: 'pylate', execution_state: 'starting' });
    await waitFor(
      async () =>
        ((await (await late.fetch(`api/kernels/${kernel.id}`)).json()) as { execution_state: string })
          .execution_state === 'idle',
      { timeoutMs: 60_000 },
    );
    expect((await late.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('serves specs as Notebook 6 tests write them: no language, spaces in names, any letter case', async () => {
    const kernels = nodePath.join(dataDir, 'kernels');
    for (const name of ['Sample', 'sample 2']) {
      mkdirSync(nodePath.join(kernels, name), { recursive: true });
      writeFileSync(
        nodePath.join(kernels, name, 'kernel.json'),
        JSON.stringify({ argv: ['cat', '{connection_file}'], display_name: 'Test kernel' }),
      );
      writeFileSync(nodePath.join(kernels, name, 'resource.txt'), 'The very model of a modern major general');
    }
    expect((await listing()).sample?.spec).toMatchObject({ display_name: 'Test kernel', language: '' });
    const sample = await late.fetch('api/kernelspecs/Sample');
    expect(sample.status).toBe(200);
    expect(await sample.json()).toMatchObject({ name: 'sample', spec: { display_name: 'Test kernel' } });
    const spaced = await late.fetch('api/kernelspecs/sample%202');
    expect(spaced.status).toBe(200);
    expect(await spaced.json()).toMatchObject({ name: 'sample 2' });
    const resource = await late.fetch('kernelspecs/sAmple/resource.txt');
    expect(resource.status).toBe(200);
    expect(await resource.text()).toBe('The very model of a modern major general');
    expect((await late.fetch('kernelspecs/sample%202/resource.txt')).status).toBe(200);
    const missing = await late.fetch('api/kernelspecs/sample%203');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: 'Kernel spec sample 3 not found', reason: null });
  });

  it("starts python3 for the name 'python', as jupyter_client does", async () => {
    const res = await late.fetch('api/kernels', { method: 'POST', json: { name: 'python' } });
    expect(res.status).toBe(201);
    const kernel = (await res.json()) as { id: string; name: string };
    expect(kernel.name).toBe('python3');
    expect((await late.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' })).status).toBe(204);
  });
});

function procCmdline(pid: string): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
}
