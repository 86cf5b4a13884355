import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v3CodeCell, v3Notebook, v3Pyout } from '../../../testing/notebooks.js';
import { makeTempDir } from '../../../testing/temp.js';
import {
  ContentsManager,
  downgradeV4ToV3,
  FileSystemStore,
  isNbserveError,
  LegacyNotebookRegistry,
  LegacyNotebooks,
  upgradeV3ToV4,
} from '../src/index.js';

const V3_NOTEBOOK = v3Notebook('FromOld', [
  { cell_type: 'heading', level: 1, metadata: {}, source: 'Hello' },
  v3CodeCell('print(1)\n1+1', 4, [
    { output_type: 'stream', stream: 'stdout', text: '1\n' },
    v3Pyout(4, '2', { html: '<b>2</b>' }),
    { output_type: 'pyerr', ename: 'E', evalue: 'v', traceback: ['tb'] },
  ]),
  { cell_type: 'markdown', metadata: {}, source: 'some *text*' },
]);

async function kindOf(p: Promise<unknown>): Promise<string | undefined> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isNbserveError(error) ? error.kind : `not an NbserveError: ${String(error)}`;
}

describe('LegacyNotebookRegistry', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir('nbserve-registry-');
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('persists ids atomically, follows renames, drops vanished paths', async () => {
    const file = join(dir, 'sub', 'ids.json');
    const a = new LegacyNotebookRegistry({ file });
    const ids = await a.sync(['a.ipynb', 'b.ipynb']);
    const idA = ids.get('a.ipynb') as string;
    expect(idA).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const b = new LegacyNotebookRegistry({ file });
    expect(await b.pathFor(idA)).toBe('a.ipynb');
    await b.renamed('a.ipynb', 'c.ipynb');
    const c = new LegacyNotebookRegistry({ file });
    expect(await c.pathFor(idA)).toBe('c.ipynb');
    const after = await c.sync(['c.ipynb']);
    expect(after.get('c.ipynb')).toBe(idA);
    expect(await c.pathFor(ids.get('b.ipynb') as string)).toBeUndefined();
    expect(Object.values(JSON.parse(await readFile(file, 'utf8')).notebooks)).toEqual(['c.ipynb']);
  });

  it('a corrupt file starts an empty map instead of failing', async () => {
    const file = join(dir, 'corrupt.json');
    await writeFile(file, '{"version":1,"notebooks":{"not-a-uuid":"x.ipynb"}}');
    const registry = new LegacyNotebookRegistry({ file });
    expect(await registry.pathFor('not-a-uuid')).toBeUndefined();
  });
});

describe('nbformat v4 -> v3 and back', () => {
  it('round-trips a notebook with outputs through the contents engine upgrade', () => {
    const v4 = upgradeV3ToV4(structuredClone(V3_NOTEBOOK) as Record<string, unknown>);
    const v3 = downgradeV4ToV3(v4, 'FromOld') as typeof V3_NOTEBOOK;
    expect(v3.nbformat).toBe(3);
    expect(v3.metadata.name).toBe('FromOld');
    const [heading, code, markdown] = v3.worksheets[0]?.cells ?? [];
    expect(heading).toEqual({ cell_type: 'heading', level: 1, metadata: {}, source: 'Hello' });
    expect(code).toEqual(V3_NOTEBOOK.worksheets[0]?.cells[1]);
    expect(markdown).toEqual({ cell_type: 'markdown', metadata: {}, source: 'some *text*' });
  });

  it('stringifies application/json for v3 and uses short mime keys', () => {
    const v3 = downgradeV4ToV3(
      {
        nbformat: 4,
        nbformat_minor: 5,
        metadata: { language_info: { name: 'julia' } },
        cells: [
          {
            cell_type: 'code',
            id: 'x',
            metadata: { collapsed: true },
            source: 'x',
            execution_count: null,
            outputs: [
              {
                output_type: 'display_data',
                metadata: {},
                data: { 'application/json': { a: 1 }, 'image/png': 'AAAA' },
              },
            ],
          },
        ],
      },
      'J',
    ) as { worksheets: { cells: Record<string, unknown>[] }[] };
    const cell = v3.worksheets[0]?.cells[0];
    expect(cell).toMatchObject({ language: 'julia', collapsed: true, metadata: {} });
    expect(cell).not.toHaveProperty('prompt_number');
    expect(cell?.outputs).toEqual([{ output_type: 'display_data', json: '{"a":1}', png: 'AAAA', metadata: {} }]);
  });
});

describe('LegacyNotebooks over a real ContentsManager', () => {
  let root: string;
  let legacy: LegacyNotebooks;
  let contents: ContentsManager;

  beforeAll(async () => {
    root = await makeTempDir('nbserve-legacy-');
    contents = new ContentsManager({ store: new FileSystemStore(root) });
    legacy = new LegacyNotebooks(
      contents,
      new LegacyNotebookRegistry({ file: join(root, '..', `${root.split('/').pop()}-ids.json`) }),
    );
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(join(root, '..', `${root.split('/').pop()}-ids.json`), { force: true });
  });

  it('creates Untitled0, Untitled1 and lists only top-level notebooks', async () => {
    await contents.save('sub', { type: 'directory' });
    await contents.save('sub/deep.ipynb', {
      type: 'notebook',
      content: { cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 },
    });
    await writeFile(join(root, 'notes.txt'), 'x');
    const first = await legacy.create(undefined);
    const second = await legacy.create(undefined);
    expect([first.name, second.name]).toEqual(['Untitled0', 'Untitled1']);
    const list = await legacy.list();
    expect(list.map((e) => e.name)).toEqual(['Untitled0', 'Untitled1']);
    expect(list[0]?.notebook_id).toBe(first.notebook_id);
    const onDisk = JSON.parse(await readFile(join(root, 'Untitled0.ipynb'), 'utf8'));
    expect(onDisk.nbformat).toBe(4);
  });

  it('saves a v3 body as v4 on disk and serves it back as v3', async () => {
    const created = await legacy.create(structuredClone(V3_NOTEBOOK));
    expect(created.name).toBe('FromOld');
    const onDisk = JSON.parse(await readFile(join(root, 'FromOld.ipynb'), 'utf8'));
    expect(onDisk.nbformat).toBe(4);
    expect(onDisk.cells[1].outputs[1]).toMatchObject({
      output_type: 'execute_result',
      data: { 'text/html': ['<b>2</b>'] },
    });
    const got = await legacy.get(created.notebook_id);
    expect(got.notebook.nbformat).toBe(3);
    expect((got.notebook.metadata as { name: string }).name).toBe('FromOld');
    const code = (got.notebook.worksheets as { cells: { outputs: unknown[] }[] }[])[0]?.cells[1];
    expect(code?.outputs[1]).toEqual({
      output_type: 'pyout',
      prompt_number: 4,
      text: '2',
      html: '<b>2</b>',
      metadata: {},
    });
  });

  it('renames through metadata.name or the name query, keeping the id; 409 on a taken name', async () => {
    const [entry] = (await legacy.list()).filter((e) => e.name === 'FromOld');
    const id = entry?.notebook_id as string;
    const body = { ...structuredClone(V3_NOTEBOOK), metadata: { name: 'Renamed' } };
    expect((await legacy.save(id, body)).path).toBe('Renamed.ipynb');
    expect((await legacy.get(id)).name).toBe('Renamed');
    expect(await kindOf(legacy.save(id, body, 'Untitled0'))).toBe('conflict');
    expect((await legacy.save(id, body, 'ByQuery')).path).toBe('ByQuery.ipynb');
    expect(await contents.exists('Renamed.ipynb')).toBe(false);
  });

  it('copies with -Copy0, -Copy1 naming', async () => {
    const [entry] = (await legacy.list()).filter((e) => e.name === 'ByQuery');
    const a = await legacy.copy(entry?.notebook_id as string);
    const b = await legacy.copy(entry?.notebook_id as string);
    expect([a.name, b.name]).toEqual(['ByQuery-Copy0', 'ByQuery-Copy1']);
    expect(a.notebook_id).not.toBe(entry?.notebook_id);
  });

  it('checkpoints in the shared .ipynb_checkpoints layout', async () => {
    const [entry] = (await legacy.list()).filter((e) => e.name === 'ByQuery');
    const id = entry?.notebook_id as string;
    const saved = await legacy.listCheckpoints(id); // the one its first save made
    expect(saved).toHaveLength(1);
    const cp = await legacy.createCheckpoint(id);
    expect(cp.checkpoint_id).toMatch(/^\d{8}T\d{12}Z$/);
    expect(cp.last_modified).toMatch(/\+00:00$/);
    expect(await legacy.listCheckpoints(id)).toEqual([...saved, cp]);
    await stat(join(root, '.ipynb_checkpoints', 'ByQuery-checkpoint.ipynb'));
    // a second one: the first steps aside, both restore and delete by their ids
    const second = await legacy.createCheckpoint(id);
    expect(await legacy.listCheckpoints(id)).toEqual([...saved, cp, second]);
    await stat(join(root, '.ipynb_checkpoints', `ByQuery-checkpoint-${cp.checkpoint_id}.ipynb`));
    await legacy.restoreCheckpoint(id, cp.checkpoint_id);
    await legacy.deleteCheckpoint(id, second.checkpoint_id);
    await legacy.deleteCheckpoint(id, 'checkpoint');
    expect(await legacy.listCheckpoints(id)).toEqual(saved);
  });

  it('refuses invalid notebooks, missing names and unknown ids; deletes', async () => {
    expect(await kindOf(legacy.create({ nbformat: 3, worksheets: 'x' }))).toBe('bad-request');
    expect(
      await kindOf(
        legacy.create(
          { nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [{ cells: [{ cell_type: 'code', input: 5 }] }] },
          'X',
        ),
      ),
    ).toBe('bad-request');
    expect(await kindOf(legacy.create({ nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [] }))).toBe(
      'bad-request',
    );
    expect(
      await kindOf(legacy.create({ nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [] }, '../evil')),
    ).toBe('bad-request');
    expect(await kindOf(legacy.get('00000000-0000-4000-8000-000000000000'))).toBe('not-found');
    expect(await kindOf(legacy.get('not-an-id'))).toBe('not-found');
    const [entry] = (await legacy.list()).filter((e) => e.name === 'ByQuery-Copy1');
    await legacy.delete(entry?.notebook_id as string);
    expect(await kindOf(legacy.get(entry?.notebook_id as string))).toBe('not-found');
    expect(await contents.exists('ByQuery-Copy1.ipynb')).toBe(false);
  });
});
