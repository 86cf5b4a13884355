import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import { ContentsManager, FileSystemStore, isNbserveError } from '../src/index.js';

/** Past the size from which a listing is streamed (4,096 entries), with several parts of 1,024. */
const COUNT = 5000;

let root: string;
let contents: ContentsManager;

beforeAll(async () => {
  root = await makeTempDir('nbserve-listing-stream-');
  const big = nodePath.join(root, 'big ü');
  await fs.mkdir(nodePath.join(big, 'Sub dir'), { recursive: true });
  await fs.mkdir(nodePath.join(big, 'another'));
  for (let i = 0; i < COUNT; i += 500) {
    await Promise.all(
      Array.from({ length: 500 }, (_, k) => {
        const n = i + k;
        const name = [`nb-${n}.ipynb`, `File ${n}.TXT`, `q"${n}\\.py`, `ü ${n} 😀.md`, `x${n}`][n % 5] as string;
        return fs.writeFile(nodePath.join(big, name), 'x'.repeat(n % 7));
      }),
    );
  }
  await fs.writeFile(nodePath.join(big, '.hidden'), '');
  await fs.symlink('/etc', nodePath.join(big, 'outside'));
  await fs.symlink('Sub dir', nodePath.join(big, 'inside-link'));
  contents = new ContentsManager({ store: new FileSystemStore(root) });
});

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function streamed(path: string): Promise<ReadableStream<Uint8Array>> {
  const { json } = await contents.getSerialized(path);
  if (json instanceof Uint8Array) throw new Error('expected a streamed listing');
  return json;
}

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  return Buffer.from(await new Response(stream).arrayBuffer()).toString('utf8');
}

describe('a big directory listing', () => {
  it('is streamed, and its bytes are exactly JSON.stringify(get())', async () => {
    const text = await readText(await streamed('big ü'));
    expect(text).toBe(JSON.stringify(await contents.get('big ü')));
    const names = (JSON.parse(text).content as { name: string }[]).map((m) => m.name);
    expect(names.slice(0, 3)).toEqual(['another', 'inside-link', 'Sub dir']);
    expect(names).toHaveLength(COUNT + 3);
    expect(names).not.toContain('outside');
    expect(names).not.toContain('.hidden');
  });

  it('leaves out an entry that vanishes while it is streamed, and stays valid JSON', async () => {
    const dir = nodePath.join(root, 'vanishing');
    await fs.mkdir(dir);
    for (let i = 0; i < COUNT; i += 500) {
      await Promise.all(
        Array.from({ length: 500 }, (_, k) =>
          fs.writeFile(nodePath.join(dir, `f${String(i + k).padStart(5, '0')}.txt`), ''),
        ),
      );
    }
    const reader = (await streamed('vanishing')).getReader();
    const parts: Uint8Array[] = [];
    // the model's head and the first 1,024 entries, stat'ed before the rest
    for (let i = 0; i < 2; i++) parts.push(((await reader.read()).value as Uint8Array) ?? new Uint8Array());
    const gone = ['f04000.txt', 'f04999.txt'];
    for (const name of gone) await fs.rm(nodePath.join(dir, name));
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    const model = JSON.parse(Buffer.concat(parts).toString('utf8')) as { content: { name: string }[] };
    const names = model.content.map((m) => m.name);
    expect(names).toHaveLength(COUNT - gone.length);
    for (const name of gone) expect(names).not.toContain(name);
    expect(names[0]).toBe('f00000.txt');
  });

  it('can be cancelled half way', async () => {
    const reader = (await streamed('big ü')).getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
  });

  it('fails before any byte when the directory is not there', async () => {
    const error = await contents.getSerialized('no such dir').catch((e: unknown) => e);
    expect(isNbserveError(error) && error.kind).toBe('not-found');
  });
});
