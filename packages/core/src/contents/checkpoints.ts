import { badRequest } from '../errors.js';
import type { CheckpointModel } from './model.js';
import type { StoreCapabilities } from './store.js';
import { isoTimestamp } from './timestamps.js';

/**
 * Checkpoints of files, addressed by API path: a history of at most `keep` copies per file, listed
 * oldest first, each with its own id and a distinct `last_modified` (Jupyter keeps one with the
 * fixed id `checkpoint`; clients take the last listed as the newest). The manager checks that the
 * file exists and is visible; implementations only store and restore bytes.
 */
export interface CheckpointStore {
  /** `releasesWrittenData`: `create` is done with `current` once its promise settles. */
  readonly capabilities?: Pick<StoreCapabilities, 'releasesWrittenData'>;
  /**
   * Adds a snapshot of the current content of `path` as the newest checkpoint, dropping the oldest
   * beyond the store's limit. `current` is that content when the caller has it at hand (a save
   * just wrote it), saving a read; it is lent for the call, like `ContentsStore.write`'s data:
   * copy it to keep it.
   */
  create(path: string, current?: Uint8Array): Promise<CheckpointModel>;
  /** Oldest first. */
  list(path: string): Promise<CheckpointModel[]>;
  /** Optional: whether `path` has any checkpoint, cheaper than `list` (every notebook save asks). */
  has?(path: string): Promise<boolean>;
  /** The checkpoint's bytes; 404 when it does not exist. */
  read(path: string, id: string): Promise<Uint8Array>;
  /** Writes the checkpoint's content back to `path`; 404 when the checkpoint does not exist. */
  restore(path: string, id: string): Promise<void>;
  delete(path: string, id: string): Promise<void>;
  /** Moves the checkpoints of a file or of everything below a directory along with it. */
  renameAll(from: string, to: string): Promise<void>;
  /** Forgets the checkpoints of a deleted file or directory. */
  deleteAll(path: string): Promise<void>;
}

/** jupyter_server's one id; here another name for the newest checkpoint (never listed). */
export const CHECKPOINT_ID = 'checkpoint';

/** How many checkpoints a file keeps unless told otherwise (jupyter_server keeps 1). */
export const DEFAULT_CHECKPOINTS_KEEP = 5;

/** A checkpoint's id: its time as `YYYYMMDDTHHMMSSffffffZ` (sorts as it is ordered in time). */
const ID_PATTERN = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{6})Z$/;
export const CHECKPOINT_ID_LENGTH = 22;

/** Whether `path` has any checkpoint. */
export async function hasCheckpoints(store: CheckpointStore, path: string): Promise<boolean> {
  return store.has ? store.has(path) : (await store.list(path)).length > 0;
}

export function checkpointMissing(path: string, id: string) {
  return `Checkpoint does not exist: ${path}@${id}`;
}

/** The limit, checked where a store is made: at least one checkpoint per file. */
export function checkpointsKeep(keep: number | undefined): number {
  const value = keep ?? DEFAULT_CHECKPOINTS_KEEP;
  if (!Number.isInteger(value) || value < 1) {
    throw badRequest(`checkpoints keep must be a whole number of at least 1, got ${value}`);
  }
  return value;
}

/** The id and `last_modified` of a checkpoint made at `epochMs`. */
export function checkpointAt(epochMs: number): CheckpointModel {
  const last_modified = isoTimestamp(epochMs);
  return { id: last_modified.replace(/[-:.]/g, ''), last_modified };
}

/** The model of the checkpoint with this id; `null` for anything not shaped as an id. */
export function checkpointOfId(id: string): CheckpointModel | null {
  const m = ID_PATTERN.exec(id);
  return m ? { id, last_modified: `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z` } : null;
}

/** Whole milliseconds of a checkpoint's time: successive checkpoints differ in them. */
export function checkpointMs(model: CheckpointModel): number {
  return Date.parse(model.last_modified);
}
