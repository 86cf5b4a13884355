/**
 * Using nbserve's core managers directly, without HTTP: a ContentsManager over the filesystem
 * (or in memory), notebooks validated as nbformat 4, checkpoints, and the frontend config store.
 *
 *   pnpm exec tsx --conditions=@nbserve/source examples/core-managers.ts
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigSections, ContentsManager, FileSystemStore, MemoryStore } from '@nbserve/core';

export interface Tour {
  listing: string[];
  copyName: string;
  restoredSource: string;
  checkpoints: number;
  memoryFiles: string[];
  config: unknown;
}

/** Walks the managers through a notebook's life in `dir`; returns what it saw. */
export async function tour(dir: string): Promise<Tour> {
  await fs.mkdir(dir, { recursive: true });
  const contents = new ContentsManager({ store: new FileSystemStore(dir) });

  const notebook = await contents.newUntitled('', { type: 'notebook' });
  await contents.save(notebook.path, {
    type: 'notebook',
    content: {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
      cells: [
        { cell_type: 'code', id: 'c1', source: 'print("hello")', metadata: {}, outputs: [], execution_count: null },
      ],
    },
  });
  // Its first save made a checkpoint; this adds a second (each file keeps its newest five).
  const checkpoint = await contents.createCheckpoint(notebook.path);

  // Change the notebook, then go back to the checkpoint.
  await contents.save(notebook.path, {
    type: 'notebook',
    content: { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [] },
  });
  await contents.restoreCheckpoint(notebook.path, checkpoint.id);
  const restored = await contents.get(notebook.path);
  const cells = (restored.content as { cells: Array<{ source: string | string[] }> }).cells;
  const copy = await contents.copyInto(notebook.path, '');

  const root = await contents.get('');
  const listing = (root.content as Array<{ name: string }>).map((entry) => entry.name).sort();

  // The same API in memory: handy for tests and for embedding without a disk.
  const memory = new ContentsManager({ store: new MemoryStore() });
  await memory.newUntitled('', { type: 'directory' });
  await memory.newUntitled('', { type: 'file', ext: '.txt' });
  const memoryRoot = await memory.get('');
  const memoryFiles = (memoryRoot.content as Array<{ name: string }>).map((entry) => entry.name).sort();

  // The classic frontend's settings store, as `/api/config/notebook` serves it.
  const config = new ConfigSections(path.join(dir, '.config'));
  await config.set('notebook', { Cell: { cm_config: { lineNumbers: true } } });
  const merged = await config.update('notebook', { Cell: { cm_config: { tabSize: 2 } } });

  return {
    listing,
    copyName: copy.name,
    restoredSource: [cells[0]?.source ?? ''].flat().join(''),
    checkpoints: (await contents.listCheckpoints(notebook.path)).length,
    memoryFiles,
    config: merged,
  };
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nbserve-example-'));
  try {
    console.log(JSON.stringify(await tour(dir), null, 2));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
