import { NbserveError, notFound } from '../errors.js';
import { CHECKPOINT_ID, type CheckpointStore, checkpointMissing } from './checkpoints.js';
import type { CheckpointModel } from './model.js';
import { baseName, joinPath, parentPath } from './paths.js';
import type { ContentsStore } from './store.js';
import { isoTimestamp } from './timestamps.js';

/**
 * Jupyter's file checkpoints: one copy per file at `<dir>/.ipynb_checkpoints/<stem>-checkpoint<ext>`,
 * id `checkpoint`. Kept inside the contents store, so it works over any ContentsStore and a
 * directory rename or delete carries its checkpoints along by itself.
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly #store: ContentsStore;
  readonly #dirName: string;

  /** Checkpoints are files of the same store: they keep what it keeps. */
  get capabilities(): { releasesWrittenData: boolean } {
    return { releasesWrittenData: this.#store.capabilities?.releasesWrittenData ?? false };
  }

  constructor(store: ContentsStore, options: { checkpointDir?: string } = {}) {
    this.#store = store;
    this.#dirName = options.checkpointDir ?? '.ipynb_checkpoints';
  }

  /** API path of the checkpoint file of `path`. */
  checkpointPath(path: string): string {
    const name = baseName(path);
    // os.path.splitext: the extension starts at the last dot that is not a leading dot.
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 && /[^.]/.test(name.slice(0, dot)) ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    return joinPath(joinPath(parentPath(path), this.#dirName), `${stem}-checkpoint${ext}`);
  }

  async create(path: string, current?: Uint8Array): Promise<CheckpointModel> {
    const data = current ?? (await this.#store.read(path));
    const cpPath = this.checkpointPath(path);
    const cpDir = parentPath(cpPath);
    const dirStat = await this.#store.stat(cpDir);
    if (dirStat === null) await this.#store.mkdir(cpDir).catch(ignoreConflict);
    await this.#store.write(cpPath, data);
    return this.#model(cpPath);
  }

  async list(path: string): Promise<CheckpointModel[]> {
    const cpPath = this.checkpointPath(path);
    const stat = await this.#store.stat(cpPath);
    return stat?.kind === 'file' ? [{ id: CHECKPOINT_ID, last_modified: isoTimestamp(stat.mtimeMs) }] : [];
  }

  async restore(path: string, id: string): Promise<void> {
    const cpPath = await this.#existing(path, id);
    await this.#store.write(path, await this.#store.read(cpPath));
  }

  async delete(path: string, id: string): Promise<void> {
    await this.#store.remove(await this.#existing(path, id));
  }

  async renameAll(from: string, to: string): Promise<void> {
    const source = this.checkpointPath(from);
    const stat = await this.#store.stat(source);
    if (stat?.kind !== 'file') return; // directories carry their .ipynb_checkpoints inside
    const target = this.checkpointPath(to);
    const targetDir = parentPath(target);
    if ((await this.#store.stat(targetDir)) === null) await this.#store.mkdir(targetDir).catch(ignoreConflict);
    if ((await this.#store.stat(target)) !== null) await this.#store.remove(target);
    await this.#store.rename(source, target);
  }

  async deleteAll(path: string): Promise<void> {
    const cpPath = this.checkpointPath(path);
    const stat = await this.#store.stat(cpPath);
    if (stat?.kind === 'file') await this.#store.remove(cpPath);
  }

  async #existing(path: string, id: string): Promise<string> {
    const cpPath = this.checkpointPath(path);
    if (id !== CHECKPOINT_ID || (await this.#store.stat(cpPath))?.kind !== 'file') {
      throw notFound(checkpointMissing(path, id));
    }
    return cpPath;
  }

  async #model(cpPath: string): Promise<CheckpointModel> {
    const stat = await this.#store.stat(cpPath);
    return { id: CHECKPOINT_ID, last_modified: isoTimestamp(stat?.mtimeMs ?? 0) };
  }
}

function ignoreConflict(error: unknown): void {
  // Two saves racing to create the checkpoint directory is fine.
  if (!(error instanceof NbserveError && error.kind === 'conflict')) throw error;
}
