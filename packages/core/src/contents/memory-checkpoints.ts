import { notFound } from '../errors.js';
import { CHECKPOINT_ID, type CheckpointStore, checkpointMissing } from './checkpoints.js';
import type { CheckpointModel } from './model.js';
import type { ContentsStore } from './store.js';
import { isoTimestamp } from './timestamps.js';

const preciseNow = () => performance.timeOrigin + performance.now();

/** Checkpoints held in memory next to any ContentsStore: nothing is written into the contents tree. */
export class MemoryCheckpointStore implements CheckpointStore {
  /** `create` keeps a copy. */
  readonly capabilities = { releasesWrittenData: true } as const;
  readonly #store: ContentsStore;
  readonly #now: () => number;
  readonly #checkpoints = new Map<string, { data: Uint8Array; mtimeMs: number }>();

  constructor(store: ContentsStore, options: { now?: () => number } = {}) {
    this.#store = store;
    this.#now = options.now ?? preciseNow;
  }

  async create(path: string, current?: Uint8Array): Promise<CheckpointModel> {
    // a copy: `slice()` of a Buffer would share the caller's memory
    const entry = { data: current ? new Uint8Array(current) : await this.#store.read(path), mtimeMs: this.#now() };
    this.#checkpoints.set(path, entry);
    return { id: CHECKPOINT_ID, last_modified: isoTimestamp(entry.mtimeMs) };
  }

  async list(path: string): Promise<CheckpointModel[]> {
    const entry = this.#checkpoints.get(path);
    return entry ? [{ id: CHECKPOINT_ID, last_modified: isoTimestamp(entry.mtimeMs) }] : [];
  }

  async restore(path: string, id: string): Promise<void> {
    await this.#store.write(path, this.#existing(path, id).data);
  }

  async delete(path: string, id: string): Promise<void> {
    this.#existing(path, id);
    this.#checkpoints.delete(path);
  }

  async renameAll(from: string, to: string): Promise<void> {
    for (const [key, entry] of [...this.#checkpoints]) {
      const moved = key === from ? to : key.startsWith(`${from}/`) ? to + key.slice(from.length) : null;
      if (moved === null) continue;
      this.#checkpoints.delete(key);
      this.#checkpoints.set(moved, entry);
    }
  }

  async deleteAll(path: string): Promise<void> {
    for (const key of [...this.#checkpoints.keys()]) {
      if (key === path || key.startsWith(`${path}/`)) this.#checkpoints.delete(key);
    }
  }

  #existing(path: string, id: string) {
    const entry = id === CHECKPOINT_ID ? this.#checkpoints.get(path) : undefined;
    if (!entry) throw notFound(checkpointMissing(path, id));
    return entry;
  }
}
