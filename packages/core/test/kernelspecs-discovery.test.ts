import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelSpecManager, kernelSpecDirs } from '../src/index.js';

let base: string;

async function spec(dir: string, name: string, json: unknown, files: string[] = []): Promise<void> {
  await mkdir(path.join(dir, name), { recursive: true });
  await writeFile(path.join(dir, name, 'kernel.json'), typeof json === 'string' ? json : JSON.stringify(json));
  for (const f of files) await writeFile(path.join(dir, name, f), 'x');
}

const minimal = (display: string) => ({ argv: ['k', '-f', '{connection_file}'], display_name: display, language: 'x' });

beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'nbserve-kernelspecs-'));
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
  });

  it('re-reads the disk on every listing', async () => {
    const dir = path.join(base, 'live');
    const manager = new KernelSpecManager({ dirs: [dir] });
    expect(Object.keys((await manager.list()).kernelspecs)).toEqual([]);
    await spec(dir, 'new-one', minimal('New'));
    expect(Object.keys((await manager.list()).kernelspecs)).toEqual(['new-one']);
    await rm(path.join(dir, 'new-one'), { recursive: true });
    await expect(manager.get('new-one')).rejects.toThrow(/not found/);
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
