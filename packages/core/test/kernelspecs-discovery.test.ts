// needs: kernel
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import { KernelSpecManager, kernelSpecDirs } from '../src/index.js';

let base: string;

async function spec(dir: string, name: string, json: unknown, files: string[] = []): Promise<void> {
  await mkdir(path.join(dir, name), { recursive: true });
  await writeFile(path.join(dir, name, 'kernel.json'), typeof json === 'string' ? json : JSON.stringify(json));
  for (const f of files) await writeFile(path.join(dir, name, f), 'x');
}

/**
 * Moves file times an hour back, so that the next change gives a different mtime even within
 * the file system's timestamp granularity (the manager's own guard for that is bypassed by the
 * tests' clock).
 */
async function backdate(...paths: string[]): Promise<void> {
  const past = new Date(Date.now() - 3_600_000);
  for (const p of paths) await utimes(p, past, past);
}

const minimal = (display: string) => ({ argv: ['k', '-f', '{connection_file}'], display_name: display, language: 'x' });

beforeAll(async () => {
  base = await makeTempDir('nbserve-kernelspecs-');
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('kernelspec search path', () => {
  it('follows Jupyter order: JUPYTER_PATH, user dir, env prefix, /usr/local, /usr', () => {
    const env = { JUPYTER_PATH: '/a/:/b', JUPYTER_DATA_DIR: '/user', HOME: '/home/x' };
    expect(kernelSpecDirs({ env, envPrefix: '/venv' })).toEqual([
      '/a/kernels',
      '/b/kernels',
      '/user/kernels',
      '/venv/share/jupyter/kernels',
      '/usr/local/share/jupyter/kernels',
      '/usr/share/jupyter/kernels',
    ]);
    expect(kernelSpecDirs({ env: { ...env, JUPYTER_PREFER_ENV_PATH: 'yes' }, envPrefix: '/venv' }).slice(2, 4)).toEqual(
      ['/venv/share/jupyter/kernels', '/user/kernels'],
    );
    expect(kernelSpecDirs({ env: { ...env, JUPYTER_PREFER_ENV_PATH: 'off' }, envPrefix: '/venv' })[2]).toBe(
      '/user/kernels',
    );
    expect(kernelSpecDirs({ env: { XDG_DATA_HOME: '/xdg' } })[0]).toBe('/xdg/jupyter/kernels');
  });
});

describe('KernelSpecManager', () => {
  it('lets the first directory win, lower-cases names, normalizes specs and lists resources', async () => {
    const high = path.join(base, 'high');
    const low = path.join(base, 'low');
    await spec(high, 'Shared', { ...minimal('High'), codemirror_mode: 'python', extra: 1 }, [
      'logo-64x64.png',
      'kernel.js',
      'notes.txt',
    ]);
    await spec(low, 'shared', minimal('Low'));
    await spec(low, 'only-low', {
      ...minimal('Only low'),
      interrupt_mode: 'message',
      env: { A: 'b' },
      metadata: { debugger: true },
    });
    await spec(low, 'broken', '{not json');
    await spec(low, 'incomplete', { argv: [], display_name: 'x', language: 'y' });
    await mkdir(path.join(low, 'not-a-spec'), { recursive: true });
    const warnings: string[] = [];
    const manager = new KernelSpecManager({
      dirs: [high, low, path.join(base, 'missing')],
      warn: (m) => warnings.push(m),
    });
    const { kernelspecs, default: def } = await manager.list();
    expect(Object.keys(kernelspecs).sort()).toEqual(['only-low', 'shared']);
    expect(def).toBe('only-low');
    expect(kernelspecs.shared?.spec).toEqual({
      argv: ['k', '-f', '{connection_file}'],
      env: {},
      display_name: 'High',
      language: 'x',
      interrupt_mode: 'signal',
      metadata: {},
    });
    expect(kernelspecs.shared?.resources).toEqual({ 'logo-64x64': 'logo-64x64.png', 'kernel.js': 'kernel.js' });
    expect(kernelspecs['only-low']?.spec).toMatchObject({
      interrupt_mode: 'message',
      env: { A: 'b' },
      metadata: { debugger: true },
    });
    expect(warnings.some((w) => w.includes('broken') && w.includes('not valid JSON'))).toBe(true);
    expect(warnings.some((w) => w.includes('incomplete') && w.includes('argv'))).toBe(true);
    expect((await manager.get('SHARED')).spec.display_name).toBe('High');
    await expect(manager.get('nope')).rejects.toThrow('Kernel spec nope not found');
    // names of Object.prototype are not specs (the API fuzzer found a 500 there)
    for (const name of ['constructor', '__proto__', 'toString']) {
      await expect(manager.get(name)).rejects.toThrow(`Kernel spec ${name} not found`);
    }
  });

  it('sees specs added and removed after the first listing', async () => {
    const dir = path.join(base, 'live');
    const manager = new KernelSpecManager({ dirs: [dir] });
    expect(Object.keys((await manager.list()).kernelspecs)).toEqual([]);
    await spec(dir, 'new-one', minimal('New'));
    expect(Object.keys((await manager.list()).kernelspecs)).toEqual(['new-one']);
    await rm(path.join(dir, 'new-one'), { recursive: true });
    await expect(manager.get('new-one')).rejects.toThrow(/not found/);
  });

  it('finds specs installed into a data directory that did not exist when it first listed', async () => {
    const data = path.join(base, 'late', 'home', '.local', 'share', 'jupyter');
    await mkdir(path.join(base, 'late', 'home'), { recursive: true });
    await backdate(path.join(base, 'late', 'home'));
    // A clock well past every file time: listings are reused whenever the disk shows no change.
    const manager = new KernelSpecManager({ dirs: [path.join(data, 'kernels')], now: () => Date.now() + 60_000 });
    expect((await manager.list()).kernelspecs).toEqual({});
    expect((await manager.list()).kernelspecs).toEqual({});
    expect(manager.diskReads).toBe(1);
    await spec(path.join(data, 'kernels'), 'Late', { argv: ['cat', '{connection_file}'], display_name: 'Late' }, [
      'resource.txt',
    ]);
    const late = await manager.get('LATE');
    expect(late.name).toBe('late');
    // jupyter_client reads every field but argv as optional.
    expect(late.spec).toMatchObject({ display_name: 'Late', language: '', interrupt_mode: 'signal' });
    expect(await manager.resourcePath('lAte', 'resource.txt')).toBe(path.join(data, 'kernels', 'Late', 'resource.txt'));
    expect(manager.diskReads).toBe(2);
  });

  it('reuses a listing until a spec directory, a kernel.json or a resource changes', async () => {
    const dir = path.join(base, 'cached');
    await spec(dir, 'one', minimal('One'));
    await backdate(dir, path.join(dir, 'one'), path.join(dir, 'one', 'kernel.json'));
    const manager = new KernelSpecManager({ dirs: [dir], now: () => Date.now() + 60_000 });
    const reads = async (action: () => Promise<unknown>) => {
      const before = manager.diskReads;
      await action();
      return manager.diskReads - before;
    };
    await manager.list();
    expect(await reads(() => manager.list())).toBe(0);
    expect(await reads(() => manager.get('one'))).toBe(0);
    // kernel.json edited in place.
    await writeFile(path.join(dir, 'one', 'kernel.json'), JSON.stringify(minimal('One, edited')));
    expect(await reads(async () => expect((await manager.get('one')).spec.display_name).toBe('One, edited'))).toBe(1);
    // A logo dropped into the spec directory.
    await writeFile(path.join(dir, 'one', 'logo-32x32.png'), 'x');
    expect(await reads(async () => expect((await manager.get('one')).resources).toHaveProperty('logo-32x32'))).toBe(1);
    // A directory that becomes a spec when its kernel.json is written.
    await mkdir(path.join(dir, 'two'));
    expect(await reads(async () => expect(Object.keys((await manager.list()).kernelspecs)).toEqual(['one']))).toBe(1);
    await writeFile(path.join(dir, 'two', 'kernel.json'), JSON.stringify(minimal('Two')));
    expect(await reads(async () => expect((await manager.get('two')).spec.display_name).toBe('Two'))).toBe(1);
    expect(await reads(() => manager.list())).toBe(0);
  });

  it('re-reads while the newest change is too recent to trust file times', async () => {
    const dir = path.join(base, 'recent');
    await spec(dir, 'fresh', minimal('Fresh'));
    // The real clock: the spec was written just now, within the file system's timestamp granularity.
    const manager = new KernelSpecManager({ dirs: [dir] });
    await manager.list();
    await manager.list();
    expect(manager.diskReads).toBe(2);
  });

  it('prefers python3 as default, else the first built-in; disk overrides built-ins; allow-list filters', async () => {
    const dir = path.join(base, 'defaults');
    const builtin = [
      {
        name: 'javascript',
        spec: { argv: ['node', 'k.js', '{connection_file}'], display_name: 'JavaScript', language: 'javascript' },
      },
      {
        name: 'typescript',
        spec: { argv: ['node', 't.js', '{connection_file}'], display_name: 'TypeScript', language: 'typescript' },
      },
    ];
    await spec(dir, 'aaa', minimal('A'));
    const noPython = new KernelSpecManager({ dirs: [dir], builtin });
    expect((await noPython.list()).default).toBe('javascript');
    expect((await noPython.get('typescript')).spec.interrupt_mode).toBe('signal');
    await spec(dir, 'python3', minimal('Python'));
    await spec(dir, 'javascript', minimal('JS on disk'));
    const withPython = new KernelSpecManager({ dirs: [dir], builtin });
    expect((await withPython.list()).default).toBe('python3');
    expect((await withPython.get('javascript')).spec.display_name).toBe('JS on disk');
    const configured = new KernelSpecManager({
      dirs: [dir],
      builtin,
      defaultName: 'typescript',
      allowed: ['typescript', 'aaa'],
    });
    const listing = await configured.list();
    expect(listing.default).toBe('typescript');
    expect(Object.keys(listing.kernelspecs).sort()).toEqual(['aaa', 'typescript']);
  });

  it('serves only plain files inside a spec directory as resources', async () => {
    const dir = path.join(base, 'res');
    await spec(dir, 'r', minimal('R'), ['logo-32x32.png']);
    await mkdir(path.join(dir, 'r', 'sub'));
    const manager = new KernelSpecManager({ dirs: [dir] });
    expect(await manager.resourcePath('r', 'logo-32x32.png')).toBe(path.join(dir, 'r', 'logo-32x32.png'));
    for (const bad of ['../r/kernel.json', 'sub', '..', '', 'missing.png', 'a/b']) {
      await expect(manager.resourcePath('r', bad)).rejects.toThrow(/not found/);
    }
    await expect(manager.resourcePath('nope', 'logo-32x32.png')).rejects.toThrow(/not found/);
  });

  it('finds the Debian python3 kernelspec in the system directory', async () => {
    const manager = new KernelSpecManager({ env: { JUPYTER_DATA_DIR: path.join(base, 'empty-user') } });
    const python = await manager.get('python3');
    expect(python.resourceDir).toBe('/usr/share/jupyter/kernels/python3');
    expect(python.spec.argv[0]).toBe('/usr/bin/python3');
    expect(python.resources['logo-64x64']).toBe('logo-64x64.png');
  });
});
