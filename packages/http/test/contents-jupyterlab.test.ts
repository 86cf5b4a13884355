// needs: kernel
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { ContentsManager } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v4MarkdownCell, v4Notebook } from '../../../testing/notebooks.js';
import { startServer, type TestServer } from '../../../testing/server.js';

const notebook = (source: string) =>
  v4Notebook([v4MarkdownCell(source)], {
    kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
  });

describe('@jupyterlab/services ContentsManager against a live nbserve', () => {
  let fx: TestServer;
  let contents: ContentsManager;

  beforeAll(async () => {
    fx = await startServer({ baseUrl: '/jl/' });
    contents = new ContentsManager({ serverSettings: fx.jupyterSettings() });
  });
  afterAll(async () => {
    contents.dispose();
    await fx.close();
  });

  it('creates, saves, reads, renames, copies and deletes notebooks', async () => {
    const created = await contents.newUntitled({ path: '', type: 'notebook' });
    expect(created).toMatchObject({ name: 'Untitled.ipynb', path: 'Untitled.ipynb', type: 'notebook' });

    const saved = await contents.save('Untitled.ipynb', {
      type: 'notebook',
      format: 'json',
      content: notebook('# One'),
    });
    expect(saved.last_modified).toMatch(/Z$/);
    const read = await contents.get('Untitled.ipynb');
    expect(read.content).toEqual(notebook('# One'));
    expect(JSON.parse(await fs.readFile(nodePath.join(fx.root, 'Untitled.ipynb'), 'utf8')).cells[0].source).toEqual([
      '# One',
    ]);

    const folder = await contents.newUntitled({ path: '', type: 'directory' });
    expect(folder.name).toBe('Untitled Folder');
    const renamed = await contents.rename('Untitled.ipynb', 'Untitled Folder/analysis.ipynb');
    expect(renamed.path).toBe('Untitled Folder/analysis.ipynb');

    const copy = await contents.copy('Untitled Folder/analysis.ipynb', 'Untitled Folder');
    expect(copy.path).toBe('Untitled Folder/analysis-Copy1.ipynb');
    const listing = await contents.get('Untitled Folder');
    expect((listing.content as { name: string }[]).map((m) => m.name)).toEqual([
      'analysis-Copy1.ipynb',
      'analysis.ipynb',
    ]);

    await expect(
      contents.rename('Untitled Folder/analysis-Copy1.ipynb', 'Untitled Folder/analysis.ipynb'),
    ).rejects.toThrow(/already exists/);
    await contents.delete('Untitled Folder/analysis-Copy1.ipynb');
    await expect(contents.get('Untitled Folder/analysis-Copy1.ipynb')).rejects.toThrow();
    await expect(fs.stat(nodePath.join(fx.root, 'Untitled Folder', 'analysis-Copy1.ipynb'))).rejects.toThrow();
  });

  it('saves text and base64 files', async () => {
    await contents.save('notes.md', { type: 'file', format: 'text', content: '# notes\n' });
    expect((await contents.get('notes.md')).content).toBe('# notes\n');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    await contents.save('img.png', { type: 'file', format: 'base64', content: png.toString('base64') });
    expect(await fs.readFile(nodePath.join(fx.root, 'img.png'))).toEqual(png);
    const model = await contents.get('img.png', { format: 'base64', content: true });
    expect(Buffer.from(model.content as string, 'base64')).toEqual(png);
  });

  it('creates, lists, restores and deletes checkpoints', async () => {
    await contents.save('cp.ipynb', { type: 'notebook', format: 'json', content: notebook('first') });
    const initial = await contents.listCheckpoints('cp.ipynb');
    expect(initial).toHaveLength(1);
    await contents.save('cp.ipynb', { type: 'notebook', format: 'json', content: notebook('second') });
    const checkpoint = await contents.createCheckpoint('cp.ipynb');
    expect(checkpoint.id).not.toBe(initial[0]?.id);
    await contents.save('cp.ipynb', { type: 'notebook', format: 'json', content: notebook('third') });
    await contents.restoreCheckpoint('cp.ipynb', checkpoint.id);
    expect((await contents.get('cp.ipynb')).content).toEqual(notebook('second'));
    await contents.deleteCheckpoint('cp.ipynb', checkpoint.id);
    expect(await contents.listCheckpoints('cp.ipynb')).toEqual(initial);
    await contents.deleteCheckpoint('cp.ipynb', initial[0]?.id ?? '');
    await expect(contents.restoreCheckpoint('cp.ipynb', 'checkpoint')).rejects.toThrow(/Checkpoint does not exist/);
  });
});
