import { describe, expect, it } from 'vitest';
import {
  type ByteRange,
  ContentsManager,
  type ContentsStore,
  FileCheckpointStore,
  FileSystemStore,
  MemoryCheckpointStore,
  MemoryStore,
  type StoreCapabilities,
  type StoreEntry,
  type StoreStat,
} from '../src/index.js';

/**
 * A third-party store as one might write it: it declares no capabilities, keeps the very bytes it
 * is given (the contract asks for a copy; a cache in front of a remote store easily forgets) and
 * counts reads. Everything else goes to a MemoryStore.
 */
class ThirdPartyStore implements ContentsStore {
  readonly inner = new MemoryStore();
  readonly kept = new Map<string, Uint8Array>();
  reads = 0;

  stat(path: string): Promise<StoreStat | null> {
    return this.inner.stat(path);
  }
  list(path: string): Promise<StoreEntry[]> {
    return this.inner.list(path);
  }
  async read(path: string): Promise<Uint8Array> {
    this.reads++;
    const kept = this.kept.get(path);
    return kept ? kept.slice() : this.inner.read(path);
  }
  readStream(path: string, range?: ByteRange) {
    return this.inner.readStream(path, range);
  }
  async write(path: string, data: Uint8Array): Promise<void> {
    await this.inner.write(path, data);
    this.kept.set(path, data);
  }
  async append(path: string, data: Uint8Array): Promise<void> {
    this.kept.delete(path);
    await this.inner.append(path, data);
  }
  mkdir(path: string): Promise<void> {
    return this.inner.mkdir(path);
  }
  async rename(from: string, to: string): Promise<void> {
    this.kept.delete(from);
    await this.inner.rename(from, to);
  }
  async remove(path: string): Promise<void> {
    this.kept.delete(path);
    await this.inner.remove(path);
  }
}

/** A notebook above SpareBuffer's 1 MiB threshold, so a save would serialize it into a reused buffer. */
const bigNotebook = (fill: string) => ({
  cells: [{ cell_type: 'markdown', id: 'm1', metadata: {}, source: fill.repeat(1_500_000) }],
  metadata: {},
  nbformat: 4,
  nbformat_minor: 5,
});

/** A whole (not streamed) answer as text. */
const text = (serialized: { json: Uint8Array | ReadableStream<Uint8Array> }) => {
  if (!(serialized.json instanceof Uint8Array)) throw new Error('a streamed answer');
  return Buffer.from(serialized.json).toString('utf8');
};

describe('store capabilities', () => {
  it("this package's stores declare both; file checkpoints inherit their store's", () => {
    const both: StoreCapabilities = { statTracksChanges: true, releasesWrittenData: true };
    expect(new MemoryStore().capabilities).toEqual(both);
    expect(new FileSystemStore('/nonexistent').capabilities).toEqual(both);
    expect(new FileCheckpointStore(new MemoryStore()).capabilities).toEqual({ releasesWrittenData: true });
    expect(new FileCheckpointStore(new ThirdPartyStore()).capabilities).toEqual({ releasesWrittenData: false });
    expect(new MemoryCheckpointStore(new ThirdPartyStore()).capabilities).toEqual({ releasesWrittenData: true });
  });

  it('a store that keeps what it is given gets no reused save buffer: every saved notebook stays intact', async () => {
    const store = new ThirdPartyStore();
    const contents = new ContentsManager({ store });
    await contents.save('a.ipynb', { type: 'notebook', content: bigNotebook('a') });
    await contents.save('b.ipynb', { type: 'notebook', content: bigNotebook('b') });
    const a = await contents.get('a.ipynb');
    expect((a.content as { cells: { source: string }[] }).cells[0]?.source).toBe('a'.repeat(1_500_000));
    // the checkpoint, written from the same bytes, too
    await contents.restoreCheckpoint('a.ipynb', 'checkpoint');
    const restored = await contents.get('a.ipynb');
    expect(restored.content).toEqual(a.content);
    expect(text(await contents.getSerialized('a.ipynb'))).toBe(JSON.stringify(restored));
  }, 60_000);

  it('a store without statTracksChanges gets the same bytes, built afresh on every request', async () => {
    const store = new ThirdPartyStore();
    const contents = new ContentsManager({ store });
    await contents.save('dir', { type: 'directory' });
    await contents.save('dir/nb.ipynb', { type: 'notebook', content: bigNotebook('n') });
    await contents.save('dir/a.txt', { type: 'file', format: 'text', content: 'a' });
    expect(text(await contents.getSerialized('dir/nb.ipynb'))).toBe(JSON.stringify(await contents.get('dir/nb.ipynb')));
    const before = store.reads;
    await contents.getSerialized('dir/nb.ipynb');
    await contents.getSerialized('dir/nb.ipynb');
    expect(store.reads).toBe(before + 2); // no served-notebook cache

    const sizeOfA = async () =>
      JSON.parse(text(await contents.getSerialized('dir'))).content.find((m: { name: string }) => m.name === 'a.txt')
        .size;
    expect(await sizeOfA()).toBe(1);
    await store.inner.write('dir/a.txt', Buffer.from('longer')); // outside the manager, directory mtime unchanged
    expect(await sizeOfA()).toBe(6); // no listing reused, not even for 100 ms
    expect(text(await contents.getSerialized('dir'))).toBe(JSON.stringify(await contents.get('dir')));
  }, 60_000);

  it('a store declaring statTracksChanges gets the served-notebook cache', async () => {
    const store = new (class extends ThirdPartyStore {
      readonly capabilities = { statTracksChanges: true, releasesWrittenData: false };
    })();
    const contents = new ContentsManager({ store });
    await contents.save('nb.ipynb', { type: 'notebook', content: bigNotebook('n') });
    const first = text(await contents.getSerialized('nb.ipynb'));
    // a notebook of 1 MiB and more is kept from its second open on (its first is served from lent memory)
    expect(text(await contents.getSerialized('nb.ipynb'))).toBe(first);
    const before = store.reads;
    expect(text(await contents.getSerialized('nb.ipynb'))).toBe(first);
    expect(store.reads).toBe(before);
  }, 60_000);
});
