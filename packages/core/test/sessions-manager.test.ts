// needs: kernel
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelHarness } from '../../../testing/kernels.js';
import { MemorySessionStore, NbserveError, pathFromNotebookField, SessionManager } from '../src/index.js';

let h: Awaited<ReturnType<typeof createKernelHarness>>;
let sessions: SessionManager;
const store = new MemorySessionStore();

beforeAll(async () => {
  h = await createKernelHarness();
  sessions = new SessionManager({ kernels: h.manager, store });
});
afterAll(async () => {
  await h.dispose();
});

describe('pathFromNotebookField', () => {
  it('reads the three generations of notebook bodies', () => {
    expect(pathFromNotebookField({ name: 'a.ipynb', path: 'dir/sub' })).toBe('dir/sub/a.ipynb');
    expect(pathFromNotebookField({ name: 'a.ipynb', path: '' })).toBe('a.ipynb');
    expect(pathFromNotebookField({ path: 'dir/a.ipynb' })).toBe('dir/a.ipynb');
    expect(pathFromNotebookField({ name: 'a.ipynb', path: 'dir/a.ipynb' })).toBe('dir/a.ipynb');
    expect(pathFromNotebookField({ name: 'only.ipynb' })).toBe('only.ipynb');
  });
});

describe('SessionManager', () => {
  it('binds a path to a new kernel with JPY_SESSION_NAME and returns the same session for the path', async () => {
    const { model, created } = await sessions.create({
      path: 'n/a.ipynb',
      type: 'notebook',
      kernel: { name: 'flood' },
    });
    expect(created).toBe(true);
    expect(model).toMatchObject({
      path: 'n/a.ipynb',
      name: 'a.ipynb',
      type: 'notebook',
      notebook: { path: 'n/a.ipynb', name: 'a.ipynb' },
    });
    const kernel = h.manager.get(model.kernel?.id as string);
    expect(kernel.env).toEqual({ JPY_SESSION_NAME: 'n/a.ipynb' });
    const again = await sessions.create({ path: 'n/a.ipynb', type: 'notebook', kernel: { name: 'python3' } });
    expect(again).toMatchObject({ created: false, model: { id: model.id, kernel: { id: kernel.id } } });
    expect((await store.list()).length).toBe(1);
  });

  it('refuses a kernel id already used by a session (409); a create naming a kernel id that is not running starts one by name', async () => {
    const [first] = await sessions.list();
    await expect(
      sessions.create({ path: 'other.ipynb', type: 'notebook', kernel: { id: first?.kernel?.id } }),
    ).rejects.toMatchObject({
      kind: 'conflict',
    });
    // Notebook 6's own tests send {name: 'python', id: 'foo'}: a new python3 kernel, a fresh id.
    const { model } = await sessions.create({
      path: 'other.ipynb',
      type: 'notebook',
      kernel: { id: 'foo', name: 'python' },
    });
    expect(model.kernel?.name).toBe('python3');
    expect(model.kernel?.id).not.toBe('foo');
    expect(h.manager.has(model.kernel?.id as string)).toBe(true);
    // An update must name a running kernel.
    await expect(sessions.update(model.id, { kernel: { id: 'nope' } })).rejects.toMatchObject({
      kind: 'bad-request',
      message: 'No such kernel: nope',
    });
    await sessions.delete(model.id);
    expect(h.manager.has(model.kernel?.id as string)).toBe(false);
  });

  it('reports an unknown kernel name as Jupyter’s 501 with short_message', async () => {
    const error = (await sessions
      .create({ path: 'x.ipynb', type: 'notebook', kernel: { name: 'nope' } })
      .catch((e) => e)) as NbserveError;
    expect(error).toBeInstanceOf(NbserveError);
    expect(error.kind).toBe('not-implemented');
    expect(error.extra).toEqual({ short_message: 'nope not found' });
  });

  it('updates path/name/type and swaps kernels, shutting the replaced one down', async () => {
    const [s] = await sessions.list();
    const id = s?.id as string;
    const oldKernel = s?.kernel?.id as string;
    const moved = await sessions.update(id, { path: 'n/b.ipynb', name: 'b.ipynb', type: 'console' });
    expect(moved).toMatchObject({ path: 'n/b.ipynb', name: 'b.ipynb', type: 'console' });
    expect(moved).not.toHaveProperty('notebook');
    const swapped = await sessions.update(id, { kernel: { name: 'flood' } });
    expect(swapped.kernel?.id).not.toBe(oldKernel);
    expect(h.manager.has(oldKernel)).toBe(false);
    await expect(sessions.update(id, { kernel: { name: 'nope' } })).rejects.toMatchObject({
      kind: 'not-implemented',
      extra: { short_message: 'Error starting kernel nope' },
    });
    expect((await sessions.get(id)).kernel?.id).toBe(swapped.kernel?.id);
  });

  it('forgets sessions whose kernel is removed, and deletes with the kernel', async () => {
    const [s] = await sessions.list();
    await h.manager.shutdown(s?.kernel?.id as string);
    expect(await sessions.list()).toEqual([]);
    await expect(sessions.get(s?.id as string)).rejects.toMatchObject({ kind: 'not-found' });
    const { model } = await sessions.create({ path: 'c.ipynb', type: 'notebook', kernel: { name: 'flood' } });
    await sessions.delete(model.id);
    expect(h.manager.has(model.kernel?.id as string)).toBe(false);
    await expect(sessions.delete(model.id)).rejects.toMatchObject({ kind: 'not-found' });
  });
});
