import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import { FileSignatureStore, loadOrCreateSecret, MemorySignatureStore, NotebookNotary } from '../src/index.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('nbserve-notary-');
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const bytes = (text: string) => new TextEncoder().encode(text);

describe('notary and signature stores', () => {
  it('signatures depend on the secret', async () => {
    const signatures = new MemorySignatureStore();
    const a = new NotebookNotary({ secret: bytes('a'.repeat(32)), signatures });
    const b = new NotebookNotary({ secret: bytes('b'.repeat(32)), signatures });
    await a.sign(bytes('{"nb":1}'));
    expect(await a.isSigned(bytes('{"nb":1}'))).toBe(true);
    expect(await a.isSigned(bytes('{"nb":2}'))).toBe(false);
    expect(await b.isSigned(bytes('{"nb":1}'))).toBe(false);
  });

  it('culls the oldest signatures beyond the limit', async () => {
    const store = new MemorySignatureStore({ limit: 3 });
    for (const d of ['1', '2', '3', '4']) await store.add(d);
    await store.add('2'); // refreshed, so 3 is now the oldest
    await store.add('5');
    expect(store.values()).toEqual(['4', '2', '5']);
  });

  it('persists concurrent additions and survives a damaged file', async () => {
    const file = nodePath.join(dir, 'sigs', 'nbsignatures.json');
    const store = new FileSignatureStore(file);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.add(`d${i}`)));
    const reloaded = new FileSignatureStore(file);
    for (let i = 0; i < 20; i++) expect(await reloaded.has(`d${i}`)).toBe(true);
    await fs.writeFile(file, '{broken');
    const damaged = new FileSignatureStore(file);
    expect(await damaged.has('d1')).toBe(false);
    await damaged.add('fresh');
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(['fresh']);
  });

  it('creates the secret once, private to the user', async () => {
    const file = nodePath.join(dir, 'data', 'notebook_secret');
    const first = await loadOrCreateSecret(file);
    const second = await loadOrCreateSecret(file);
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    expect(first.length).toBe(32);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  });
});
