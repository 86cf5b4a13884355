import { notFound } from '../errors.js';
import {
  CHECKPOINT_ID,
  type CheckpointStore,
  checkpointAt,
  checkpointMissing,
  checkpointsKeep,
} from './checkpoints.js';
import type { CheckpointModel } from './model.js';
import type { ContentsStore } from './store.js';

const preciseNow = () => performance.timeOrigin + performance.now();

interface Held extends CheckpointModel {
  data: Uint8Array;
}

/**
 * Checkpoints held in memory next to any ContentsStore: nothing is written into the contents tree.
 * The same history as FileCheckpointStore: at most `keep` per file, oldest first, ids and times
 * that differ by at least a millisecond.
 */
export class MemoryCheckpointStore implements CheckpointStore {
  /** `create` keeps a copy. */
  readonly capabilities = { releasesWrittenData: true } as const;
  readonly #store: ContentsStore;
  readonly #now: () => number;
  readonly #keep: number;
  #lastMs = 0;
  /** Per file, oldest first. */
  readonly #checkpoints = new Map<string, Held[]>();

  constructor(store: ContentsStore, options: { now?: () => number; keep?: number | undefined } = {}) {
    this.#store = store;
    this.#now = options.now ?? preciseNow;
    this.#keep = checkpointsKeep(options.keep);
  }

  async create(path: string, current?: Uint8Array): Promise<CheckpointModel> {
    // a copy: `slice()` of a Buffer would share the caller's memory
    const data = current ? new Uint8Array(current) : await this.#store.read(path);
    const held = this.#checkpoints.get(path) ?? [];
    // a later millisecond than any checkpoint made before, deleted ones included: ids are never reused
    const now = this.#now();
    this.#lastMs = Math.floor(now) > this.#lastMs ? now : Math.floor(this.#lastMs) + 1;
    const model = checkpointAt(this.#lastMs);
    held.push({ ...model, data });
    held.splice(0, Math.max(0, held.length - this.#keep));
    this.#checkpoints.set(path, held);
    return this.#shown(model);
  }

  async list(path: string): Promise<CheckpointModel[]> {
    return (this.#checkpoints.get(path) ?? []).map((held) => this.#shown(held));
  }

  async has(path: string): Promise<boolean> {
    return this.#checkpoints.has(path);
  }

  async read(path: string, id: string): Promise<Uint8Array> {
    return new Uint8Array(this.#existing(path, id).data);
  }

  async restore(path: string, id: string): Promise<void> {
    await this.#store.write(path, this.#existing(path, id).data);
  }

  async delete(path: string, id: string): Promise<void> {
    const found = this.#existing(path, id);
    const rest = (this.#checkpoints.get(path) ?? []).filter((held) => held !== found);
    if (rest.length > 0) this.#checkpoints.set(path, rest);
    else this.#checkpoints.delete(path);
  }

  async renameAll(from: string, to: string): Promise<void> {
    const moves: [string, Held[]][] = [];
    for (const [key, held] of this.#checkpoints) {
      const moved = key === from ? to : key.startsWith(`${from}/`) ? to + key.slice(from.length) : null;
      if (moved !== null) moves.push([moved, held]);
    }
    await this.deleteAll(from);
    for (const [moved, held] of moves) this.#checkpoints.set(moved, held);
  }

  async deleteAll(path: string): Promise<void> {
    for (const key of [...this.#checkpoints.keys()]) {
      if (key === path || key.startsWith(`${path}/`)) this.#checkpoints.delete(key);
    }
  }

  /** With one kept, exactly jupyter_server's: its one id. */
  #shown({ id, last_modified }: CheckpointModel): CheckpointModel {
    return { id: this.#keep === 1 ? CHECKPOINT_ID : id, last_modified };
  }

  /** `checkpoint`, jupyter_server's id, names the newest. */
  #existing(path: string, id: string): Held {
    const held = this.#checkpoints.get(path) ?? [];
    const found = id === CHECKPOINT_ID ? held.at(-1) : held.find((entry) => entry.id === id);
    if (!found) throw notFound(checkpointMissing(path, id));
    return found;
  }
}
