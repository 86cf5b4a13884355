// needs: kernel

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../testing/ports.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { makeTempDir } from '../../../testing/temp.js';
import { waitFor, within } from '../../../testing/wait.js';

/**
 * Differential test: the same sequence of Contents API requests against the real jupyter_server
 * (Debian python3-jupyter-server 1.23) and nbserve, each over its own identical temp root.
 * Status codes, Location headers and the model fields clients read must agree.
 */
interface Step {
  method: string;
  path: string;
  body?: unknown;
}

const notebook = {
  cells: [
    { cell_type: 'markdown', id: 'm1', metadata: {}, source: '# Title\nText' },
    { cell_type: 'code', id: 'c1', metadata: {}, source: 'x = 1\nx', execution_count: null, outputs: [] },
  ],
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
  nbformat: 4,
  nbformat_minor: 5,
};

const richNotebook = {
  ...notebook,
  cells: [
    {
      cell_type: 'code',
      id: 'r1',
      metadata: {},
      source: 'HTML("<b>x</b>")',
      execution_count: 1,
      outputs: [
        {
          output_type: 'execute_result',
          execution_count: 1,
          metadata: {},
          data: { 'text/html': '<b>x</b>', 'text/plain': 'x' },
        },
      ],
    },
  ],
};

/**
 * Left out because jupyter_server 1.23 answers them with a 500 (bugs fixed in 2.x, whose answers
 * nbserve gives and the other tests check): POST without a body (201 untitled file), PATCH of a
 * missing file (404), restoring an unknown checkpoint id (404).
 * Also not compared: trust of a notebook whose bytes another writer formatted differently. Jupyter
 * re-hashes the parsed content on every read; nbserve signs stored bytes (see docs/contents-api.md).
 */
const STEPS: Step[] = [
  { method: 'GET', path: '' },
  { method: 'POST', path: '', body: { type: 'notebook' } },
  { method: 'POST', path: '', body: { type: 'notebook' } },
  { method: 'POST', path: '', body: { type: 'directory' } },
  { method: 'POST', path: '', body: { type: 'directory' } },
  { method: 'POST', path: 'Untitled%20Folder', body: { type: 'file', ext: '.tar.gz' } },
  { method: 'POST', path: 'Untitled%20Folder', body: { type: 'file', ext: '.tar.gz' } },
  { method: 'POST', path: '', body: { type: 'file', ext: '.txt' } },
  { method: 'POST', path: '', body: { copy_from: 'Untitled.ipynb' } },
  { method: 'POST', path: '', body: { copy_from: 'Untitled-Copy1.ipynb' } },
  { method: 'POST', path: 'Untitled%20Folder', body: { copy_from: 'Untitled-Copy1.ipynb' } },
  { method: 'POST', path: 'Untitled.ipynb', body: { type: 'notebook' } },
  { method: 'POST', path: 'nowhere', body: { type: 'notebook' } },
  { method: 'PUT', path: 'a%20b.txt', body: { type: 'file', format: 'text', content: 'héllo\nworld\n' } },
  { method: 'PUT', path: 'a%20b.txt', body: { type: 'file', format: 'text', content: 'hello again\n' } },
  {
    method: 'PUT',
    path: 'bin.dat',
    body: { type: 'file', format: 'base64', content: Buffer.alloc(100, 0xfe).toString('base64') },
  },
  { method: 'PUT', path: 'nb.ipynb', body: { type: 'notebook', content: notebook } },
  { method: 'PUT', path: 'nb.ipynb', body: { type: 'notebook', content: notebook } },
  { method: 'PUT', path: 'newdir', body: { type: 'directory' } },
  { method: 'PUT', path: 'newdir', body: { type: 'directory' } },
  { method: 'PUT', path: 'x.ipynb', body: { copy_from: 'nb.ipynb' } },
  { method: 'PUT', path: 'y.txt', body: { type: 'file', content: 'no format' } },
  { method: 'PUT', path: 'y.txt', body: { format: 'text', content: 'no type' } },
  { method: 'PUT', path: 'y.txt', body: { type: 'file', format: 'text' } },
  { method: 'GET', path: 'a%20b.txt' },
  { method: 'GET', path: 'a%20b.txt?format=base64' },
  { method: 'GET', path: 'a%20b.txt?content=0' },
  { method: 'GET', path: 'bin.dat' },
  { method: 'GET', path: 'bin.dat?format=text' },
  { method: 'GET', path: 'nb.ipynb' },
  { method: 'GET', path: 'nb.ipynb?type=file' },
  { method: 'GET', path: 'nb.ipynb?content=0' },
  { method: 'GET', path: 'a%20b.txt?type=directory' },
  { method: 'GET', path: 'Untitled%20Folder?type=notebook' },
  { method: 'GET', path: 'Untitled%20Folder' },
  { method: 'GET', path: 'missing.txt' },
  { method: 'GET', path: 'a%20b.txt?format=hex' },
  { method: 'GET', path: 'a%20b.txt?content=2' },
  { method: 'PATCH', path: 'a%20b.txt', body: { path: 'nb.ipynb' } },
  { method: 'PATCH', path: 'a%20b.txt', body: { path: 'newdir/c d.txt' } },
  { method: 'PATCH', path: 'nb.ipynb', body: { path: 'nb.ipynb' } },
  { method: 'DELETE', path: 'newdir' },
  { method: 'DELETE', path: 'newdir/c%20d.txt' },
  { method: 'DELETE', path: 'newdir' },
  { method: 'DELETE', path: 'newdir' },
  { method: 'GET', path: 'nb.ipynb/checkpoints' },
  { method: 'POST', path: 'nb.ipynb/checkpoints' },
  { method: 'PUT', path: 'nb.ipynb', body: { type: 'notebook', content: { ...notebook, cells: [] } } },
  { method: 'POST', path: 'nb.ipynb/checkpoints/checkpoint' },
  { method: 'GET', path: 'nb.ipynb' },
  { method: 'DELETE', path: 'nb.ipynb/checkpoints/checkpoint' },
  { method: 'GET', path: 'nb.ipynb/checkpoints' },
  { method: 'PATCH', path: 'nb.ipynb', body: { path: 'Untitled Folder/moved.ipynb' } },
  { method: 'PUT', path: 'rich.ipynb', body: { type: 'notebook', content: richNotebook } },
  { method: 'GET', path: 'rich.ipynb' },
  { method: 'POST', path: 'rich.ipynb/trust' },
  { method: 'GET', path: 'rich.ipynb' },
  { method: 'PUT', path: 'as-text.json', body: { type: 'file', format: 'text', content: JSON.stringify(notebook) } },
  { method: 'GET', path: 'as-text.json?type=notebook&content=0' },
  { method: 'PUT', path: '.hidden.txt', body: { type: 'file', format: 'text', content: 'h' } },
  { method: 'GET', path: '.hidden.txt' },
  { method: 'DELETE', path: 'missing.txt' },
  { method: 'PUT', path: 'sub', body: { type: 'directory' } },
  { method: 'PUT', path: 'sub/deep.py', body: { type: 'file', format: 'text', content: 'print(1)\n' } },
  { method: 'GET', path: 'sub/deep.py' },
  { method: 'PATCH', path: 'sub', body: { path: 'renamed sub' } },
  { method: 'GET', path: 'renamed%20sub' },
  { method: 'GET', path: '' },
];

interface Observed {
  status: number;
  location: string | null;
  model: unknown;
}

/** The parts of an answer clients depend on; timestamps only by shape, error text not at all. */
function project(status: number, location: string | null, body: unknown): Observed {
  if (status >= 400 || body === null) return { status, location, model: null };
  const shape = (m: Record<string, unknown>): Record<string, unknown> => ({
    name: m.name,
    path: m.path,
    type: m.type,
    writable: m.writable,
    mimetype: m.mimetype,
    format: m.format,
    size: m.type === 'directory' ? null : m.size,
    last_modified: typeof m.last_modified === 'string' && /Z$/.test(m.last_modified),
    content: Array.isArray(m.content)
      ? (m.content as Record<string, unknown>[]).map(shape).sort((a, b) => String(a.name).localeCompare(String(b.name)))
      : m.content,
  });
  if (Array.isArray(body)) {
    return {
      status,
      location,
      model: body.map((c: Record<string, unknown>) => ({ id: c.id, lm: typeof c.last_modified })),
    };
  }
  return { status, location, model: shape(body as Record<string, unknown>) };
}

async function run(send: (step: Step) => Promise<Response>): Promise<Observed[]> {
  const observed: Observed[] = [];
  for (const step of STEPS) {
    const res = await send(step);
    const text = await res.text();
    let body: unknown = null;
    if (text && res.headers.get('content-type')?.includes('json')) body = JSON.parse(text);
    observed.push(project(res.status, res.headers.get('location'), body));
  }
  return observed;
}

describe('parity with jupyter_server 1.23 (the real one, side by side)', () => {
  let jupyterDir: string;
  let jupyter: ChildProcess;
  let jupyterPort: number;
  let fx: TestServer;

  beforeAll(async () => {
    jupyterDir = await makeTempDir('nbserve-parity-');
    for (const sub of ['root', 'config', 'data', 'runtime']) await fs.mkdir(nodePath.join(jupyterDir, sub));
    jupyterPort = await freePort();
    jupyter = spawn(
      '/usr/bin/python3',
      [
        '-m',
        'jupyter_server',
        '--no-browser',
        `--ServerApp.root_dir=${nodePath.join(jupyterDir, 'root')}`,
        `--ServerApp.port=${jupyterPort}`,
        '--ServerApp.port_retries=0',
        '--allow-root',
        '--ServerApp.ip=127.0.0.1',
        '--ServerApp.token=t',
        '--FileContentsManager.delete_to_trash=False',
      ],
      {
        detached: true,
        stdio: 'ignore',
        env: {
          ...process.env,
          HOME: jupyterDir,
          JUPYTER_CONFIG_DIR: nodePath.join(jupyterDir, 'config'),
          JUPYTER_DATA_DIR: nodePath.join(jupyterDir, 'data'),
          JUPYTER_RUNTIME_DIR: nodePath.join(jupyterDir, 'runtime'),
        },
      },
    );
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${jupyterPort}/api`).then(
          (r) => r.ok,
          () => false,
        ),
      { timeoutMs: 40_000, intervalMs: 200, what: 'jupyter_server answering' },
    );
    // one checkpoint per file is jupyter_server's behaviour (its history: checkpoint-history-api.test.ts)
    fx = await startServer({ checkpointsKeep: 1 });
  });

  afterAll(async () => {
    if (jupyter?.pid) {
      try {
        process.kill(-jupyter.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const exited = jupyter.exitCode !== null || jupyter.signalCode !== null;
      if (!exited) await within(once(jupyter, 'exit'), 300, 'exit on SIGTERM').catch(() => {});
      try {
        process.kill(-jupyter.pid, 'SIGKILL');
      } catch {
        // exited on SIGTERM
      }
    }
    await fx?.close();
    await fs.rm(jupyterDir, { recursive: true, force: true });
  });

  it('answers the same request sequence with the same statuses, Locations and models', async () => {
    const jsonHeaders = (step: Step): Record<string, string> =>
      step.body === undefined ? {} : { 'Content-Type': 'application/json' };
    const theirs = await run((step) =>
      fetch(`http://127.0.0.1:${jupyterPort}/api/contents/${step.path}`, {
        method: step.method,
        headers: { Authorization: 'token t', ...jsonHeaders(step) },
        ...(step.body !== undefined ? { body: JSON.stringify(step.body) } : {}),
      }),
    );
    const ours = await run((step) =>
      fx.fetch(`/api/contents/${step.path}`, {
        method: step.method,
        headers: jsonHeaders(step),
        ...(step.body !== undefined ? { body: JSON.stringify(step.body) } : {}),
      }),
    );
    const label = (i: number) => `${STEPS[i]?.method} ${STEPS[i]?.path} ${JSON.stringify(STEPS[i]?.body ?? '')}`;
    const canonical = (value: unknown): string =>
      JSON.stringify(value, (_key, v: unknown) =>
        v && typeof v === 'object' && !Array.isArray(v)
          ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
          : v,
      );
    const differences = STEPS.map((_, i) => i)
      .filter((i) => canonical(ours[i]) !== canonical(theirs[i]))
      .map((i) => ({ step: label(i), nbserve: ours[i], jupyter: theirs[i] }));
    expect(differences).toEqual([]);
  });
});
