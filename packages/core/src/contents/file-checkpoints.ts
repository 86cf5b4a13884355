import { setTimeout as sleep } from 'node:timers/promises';
import { NbserveError, notFound } from '../errors.js';
import {
  CHECKPOINT_ID,
  CHECKPOINT_ID_LENGTH,
  type CheckpointStore,
  checkpointAt,
  checkpointMissing,
  checkpointMs,
  checkpointOfId,
  checkpointsKeep,
} from './checkpoints.js';
import type { CheckpointModel } from './model.js';
import { baseName, joinPath, parentPath } from './paths.js';
import type { ContentsStore, StoreStat } from './store.js';

export interface FileCheckpointOptions {
  /** Default `.ipynb_checkpoints`. */
  checkpointDir?: string;
  /** Checkpoints kept per file, at least 1 (jupyter_server's behaviour). Default 5. */
  keep?: number | undefined;
}

/** A checkpoint and the store path holding it. */
interface Held extends CheckpointModel {
  at: string;
}

/** How long a checkpoint waits for the store's clock to move past the one before (2 s: FAT). */
const CLOCK_WAIT_MS = 2_500;

/**
 * Checkpoints as files of the contents store, in Jupyter's layout: the newest is always at
 * `<dir>/.ipynb_checkpoints/<stem>-checkpoint<ext>`, where jupyter_server reads and writes its one
 * checkpoint, so a jupyter_server on the same folder sees it; older ones sit beside it as
 * `<stem>-checkpoint-<id><ext>`. An id is the checkpoint's time (its file's mtime when it was made:
 * a rename keeps the mtime, and an older name carries it). A directory rename or delete carries its
 * `.ipynb_checkpoints` along by itself.
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly #store: ContentsStore;
  readonly #dirName: string;
  readonly #keep: number;

  /** Checkpoints are files of the same store: they keep what it keeps. */
  get capabilities(): { releasesWrittenData: boolean } {
    return { releasesWrittenData: this.#store.capabilities?.releasesWrittenData ?? false };
  }

  constructor(store: ContentsStore, options: FileCheckpointOptions = {}) {
    this.#store = store;
    this.#dirName = options.checkpointDir ?? '.ipynb_checkpoints';
    this.#keep = checkpointsKeep(options.keep);
  }

  /** API path of the newest checkpoint of `path` (jupyter_server's one). */
  checkpointPath(path: string): string {
    const { dir, stem, ext } = this.#parts(path);
    return joinPath(dir, `${stem}-checkpoint${ext}`);
  }

  async create(path: string, current?: Uint8Array): Promise<CheckpointModel> {
    const data = current ?? (await this.#store.read(path));
    const newestPath = this.checkpointPath(path);
    const cpDir = parentPath(newestPath);
    if ((await this.#store.stat(cpDir)) === null) await this.#store.mkdir(cpDir).catch(ignoreConflict);
    const newest = await this.#newest(path);
    const older = (await this.#older(path)).filter((held) => held.id !== newest?.id);
    if (newest && this.#keep > 1) {
      // the newest steps aside under its id; with one kept it is simply overwritten, as in Jupyter
      const aside = this.#olderPath(path, newest.id);
      if ((await this.#store.stat(aside)) !== null) await this.#store.remove(aside);
      await this.#store.rename(newestPath, aside);
      older.push({ ...newest, at: aside });
    }
    const after = Math.max(newest ? checkpointMs(newest) : 0, ...older.map(checkpointMs));
    const made = this.#shown(await this.#writeAfter(newestPath, data, after));
    older.sort(byId);
    for (const stale of older.slice(0, Math.max(0, older.length - (this.#keep - 1)))) {
      await this.#store.remove(stale.at);
    }
    return made;
  }

  async list(path: string): Promise<CheckpointModel[]> {
    const newest = await this.#newest(path);
    if (this.#keep === 1) return newest ? [this.#shown(newest)] : [];
    const older = (await this.#older(path)).filter((held) => held.id !== newest?.id);
    return [...older, ...(newest ? [newest] : [])].map(({ id, last_modified }) => ({ id, last_modified }));
  }

  /** One stat where the newest is in its place, as it is after a first save. */
  async has(path: string): Promise<boolean> {
    return (await this.#newest(path)) !== null || (this.#keep > 1 && (await this.#older(path)).length > 0);
  }

  async read(path: string, id: string): Promise<Uint8Array> {
    return this.#store.read((await this.#find(path, id)).at);
  }

  async restore(path: string, id: string): Promise<void> {
    const found = await this.#find(path, id);
    await this.#store.write(path, await this.#store.read(found.at));
  }

  async delete(path: string, id: string): Promise<void> {
    const found = await this.#find(path, id);
    await this.#store.remove(found.at);
    if (found.at !== this.checkpointPath(path)) return;
    // the next one moves into jupyter_server's place (a rename keeps its mtime, hence its id)
    const next = (await this.#older(path)).at(-1);
    if (next) await this.#store.rename(next.at, found.at);
  }

  async renameAll(from: string, to: string): Promise<void> {
    if ((await this.#store.stat(to))?.kind === 'directory') return; // carries its .ipynb_checkpoints inside
    const moves = (await this.#held(from)).map((held) => ({ held, target: this.#pathAs(to, held, from) }));
    if (moves.length === 0) return;
    await this.deleteAll(to); // leftovers of an earlier file of that name
    const targetDir = parentPath(this.checkpointPath(to));
    if ((await this.#store.stat(targetDir)) === null) await this.#store.mkdir(targetDir).catch(ignoreConflict);
    for (const { held, target } of moves) await this.#store.rename(held.at, target);
  }

  async deleteAll(path: string): Promise<void> {
    for (const held of await this.#held(path)) await this.#store.remove(held.at);
  }

  /** With one kept, exactly jupyter_server's: its one id. */
  #shown({ id, last_modified }: CheckpointModel): CheckpointModel {
    return { id: this.#keep === 1 ? CHECKPOINT_ID : id, last_modified };
  }

  // --- layout -------------------------------------------------------------------------------

  #parts(path: string): { dir: string; stem: string; ext: string } {
    const name = baseName(path);
    // os.path.splitext: the extension starts at the last dot that is not a leading dot.
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 && /[^.]/.test(name.slice(0, dot)) ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    return { dir: joinPath(parentPath(path), this.#dirName), stem, ext };
  }

  #olderPath(path: string, id: string): string {
    const { dir, stem, ext } = this.#parts(path);
    return joinPath(dir, `${stem}-checkpoint-${id}${ext}`);
  }

  /** Where `held`, a checkpoint of `from`, goes for `to`. */
  #pathAs(to: string, held: Held, from: string): string {
    return held.at === this.checkpointPath(from) ? this.checkpointPath(to) : this.#olderPath(to, held.id);
  }

  /** The checkpoint in jupyter_server's place, if any. */
  async #newest(path: string): Promise<Held | null> {
    const at = this.checkpointPath(path);
    const stat = await this.#store.stat(at);
    return stat?.kind === 'file' ? { ...checkpointAt(stat.mtimeMs), at } : null;
  }

  /** The older checkpoints beside it, oldest first. */
  async #older(path: string): Promise<Held[]> {
    const { dir, stem, ext } = this.#parts(path);
    const prefix = `${stem}-checkpoint-`;
    const names = await this.#fileNames(dir);
    const held: Held[] = [];
    for (const name of names) {
      if (name.length !== prefix.length + CHECKPOINT_ID_LENGTH + ext.length) continue;
      if (!name.startsWith(prefix) || !name.endsWith(ext)) continue;
      const model = checkpointOfId(name.slice(prefix.length, prefix.length + CHECKPOINT_ID_LENGTH));
      if (model) held.push({ ...model, at: joinPath(dir, name) });
    }
    return held.sort(byId);
  }

  async #held(path: string): Promise<Held[]> {
    const newest = await this.#newest(path);
    return [...(await this.#older(path)), ...(newest ? [newest] : [])];
  }

  async #fileNames(dir: string): Promise<string[]> {
    if ((await this.#store.stat(dir))?.kind !== 'directory') return [];
    try {
      if (this.#store.listKinds) return (await this.#store.listKinds(dir)).files;
      return (await this.#store.list(dir)).filter((entry) => entry.stat.kind === 'file').map((entry) => entry.name);
    } catch (error) {
      if (error instanceof NbserveError && error.kind === 'not-found') return []; // removed meanwhile
      throw error;
    }
  }

  async #find(path: string, id: string): Promise<Held> {
    const newest = await this.#newest(path);
    if (newest && (id === CHECKPOINT_ID || id === newest.id)) return newest;
    const model = checkpointOfId(id);
    const at = model && this.#olderPath(path, id);
    if (model && at && (await this.#store.stat(at))?.kind === 'file') return { ...model, at };
    throw notFound(checkpointMissing(path, id));
  }

  /**
   * Writes the newest checkpoint so that its mtime is in a later millisecond than `afterMs` (the
   * one before it): file clocks tick coarsely (1-10 ms), and ids and times must differ.
   */
  async #writeAfter(at: string, data: Uint8Array, afterMs: number): Promise<CheckpointModel> {
    const floor = Math.floor(afterMs);
    const deadline = Date.now() + CLOCK_WAIT_MS;
    if (Date.now() <= floor) await sleep(floor + 1 - Date.now());
    for (;;) {
      await this.#store.write(at, data);
      const stat: StoreStat | null = await this.#store.stat(at);
      if (stat === null) throw notFound(`Checkpoint file vanished: ${at}`);
      if (Math.floor(stat.mtimeMs) > floor || Date.now() > deadline) return checkpointAt(stat.mtimeMs);
      await sleep(2);
    }
  }
}

function byId(a: CheckpointModel, b: CheckpointModel): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function ignoreConflict(error: unknown): void {
  // Two saves racing to create the checkpoint directory is fine.
  if (!(error instanceof NbserveError && error.kind === 'conflict')) throw error;
}
