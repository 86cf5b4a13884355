import type { CheckpointModel } from './model.js';
import type { StoreCapabilities } from './store.js';

/**
 * Checkpoints of files, addressed by API path. Jupyter keeps one per file with the fixed id
 * `checkpoint`; implementations may keep more. The manager checks that the file exists and is
 * visible; implementations only store and restore bytes.
 */
export interface CheckpointStore {
  /** `releasesWrittenData`: `create` is done with `current` once its promise settles. */
  readonly capabilities?: Pick<StoreCapabilities, 'releasesWrittenData'>;
  /**
   * Snapshots the current content of `path` (overwriting an existing checkpoint). `current` is
   * that content when the caller has it at hand (a save just wrote it), saving a read; it is lent
   * for the call, like `ContentsStore.write`'s data: copy it to keep it.
   */
  create(path: string, current?: Uint8Array): Promise<CheckpointModel>;
  list(path: string): Promise<CheckpointModel[]>;
  /** Writes the checkpoint's content back to `path`; 404 when the checkpoint does not exist. */
  restore(path: string, id: string): Promise<void>;
  delete(path: string, id: string): Promise<void>;
  /** Moves the checkpoints of a file or of everything below a directory along with it. */
  renameAll(from: string, to: string): Promise<void>;
  /** Forgets the checkpoints of a deleted file or directory. */
  deleteAll(path: string): Promise<void>;
}

export const CHECKPOINT_ID = 'checkpoint';

export function checkpointMissing(path: string, id: string) {
  return `Checkpoint does not exist: ${path}@${id}`;
}
