// needs: kernel
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContentsManager, FileSystemStore } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tour } from '../../../examples/core-managers.js';
import { buildHostApp } from '../../../examples/embed-hono.js';
import { makeTempDir } from '../../../testing/temp.js';
import { listen, type RunningServer } from '../src/serve.js';

const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples');

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('nbserve-examples-');
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe('examples/embed-hono.ts', () => {
  let running: RunningServer;
  let embedded: ReturnType<typeof buildHostApp>;
  beforeAll(async () => {
    await fs.mkdir(path.join(dir, 'root'));
    embedded = buildHostApp(path.join(dir, 'root'), {
      token: 'example-token',
      configDir: path.join(dir, 'config'),
      dataDir: path.join(dir, 'data'),
    });
    running = await listen(embedded.host, { port: 0 });
  });
  afterAll(async () => {
    await running.close();
    await embedded.nbserve.close();
  });

  it('keeps the host routes and serves nbserve under /notebooks-server over a real socket', async () => {
    expect(await (await fetch(`${running.url}health`)).json()).toEqual({ ok: true });
    expect((await fetch(`${running.url}notebooks-server/api`)).status).toBe(200);
    const denied = await fetch(`${running.url}notebooks-server/tree`, { redirect: 'manual' });
    expect(denied.headers.get('location')).toBe(
      `/notebooks-server/login?next=${encodeURIComponent('/notebooks-server/tree')}`,
    );
    const status = await fetch(`${running.url}notebooks-server/api/status`, {
      headers: { Authorization: 'token example-token' },
    });
    expect(status.status).toBe(200);
  });
});

describe('examples/core-managers.ts', () => {
  it('runs the tour of the managers', async () => {
    const result = await tour(path.join(dir, 'tour'));
    expect(result.listing).toEqual(['Untitled-Copy1.ipynb', 'Untitled.ipynb']);
    expect(result.copyName).toBe('Untitled-Copy1.ipynb');
    expect(result.restoredSource).toBe('print("hello")');
    expect(result.checkpoints).toBe(2);
    expect(result.memoryFiles).toEqual(['Untitled Folder', 'untitled.txt']);
    expect(result.config).toEqual({ Cell: { cm_config: { lineNumbers: true, tabSize: 2 } } });
  });
});

describe('examples/notebooks', () => {
  it('holds valid notebooks (python with a PNG output and math, javascript) and a subfolder', async () => {
    const contents = new ContentsManager({ store: new FileSystemStore(path.join(EXAMPLES, 'notebooks')) });
    const root = await contents.get('');
    const names = (root.content as Array<{ name: string; type: string }>).map((e) => `${e.type}:${e.name}`).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'notebook:Welcome.ipynb',
        'notebook:Python Basics.ipynb',
        'directory:data',
        'directory:javascript',
      ]),
    );
    const basics = await contents.get('Python Basics.ipynb');
    const outputs = (basics.content as { cells: Array<{ outputs?: Array<{ data?: Record<string, unknown> }> }> }).cells
      .flatMap((cell) => cell.outputs ?? [])
      .flatMap((output) => Object.keys(output.data ?? {}));
    expect(outputs).toContain('image/png');
    const welcome = JSON.stringify((await contents.get('Welcome.ipynb')).content);
    expect(welcome).toContain('$$');
    const js = (await contents.get('javascript/Hello JavaScript.ipynb')).content as {
      metadata: { kernelspec: { name: string } };
    };
    expect(js.metadata.kernelspec.name).toBe('javascript');
    expect((await contents.get('data/Temperatures.ipynb')).type).toBe('notebook');
  });
});
