import { readFileSync } from 'node:fs';
import type { ContentsManager } from '../contents/manager.js';
import type { FileWatch } from '../contents/store.js';
import { NbserveError, notFound } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { isObject } from '../util/is-object.js';
import type { SharedDocument } from './shared-document.js';

/**
 * The link between a shared document and its file, through the contents API: loads, saves with
 * the hash last seen as precondition (a file changed underneath is never overwritten), and notices
 * changes on disk. `hash` is persisted next to the update log, so after a restart the room knows
 * whether the file changed while the server was down.
 */
export class DocumentFile {
  readonly #contents: ContentsManager;
  readonly #metaFile: string;
  readonly #format: 'json' | 'text';
  readonly #type: 'notebook' | 'file';
  /** sha256 of the bytes on disk as last loaded or saved. */
  hash: string | null;
  #mtimeMs = -1;
  #unreadable = false;
  #size = -1;

  constructor(contents: ContentsManager, metaFile: string, kind: SharedDocument['kind']) {
    this.#contents = contents;
    this.#metaFile = metaFile;
    [this.#format, this.#type] = kind === 'json:notebook' ? ['json', 'notebook'] : ['text', 'file'];
    this.hash = readStoredHash(metaFile);
  }

  /** The file's content and hash, as the contents API reads it. */
  async load(path: string): Promise<{ content: unknown; hash: string }> {
    // Stat before reading: a rewrite landing during the read then shows at the next look.
    const stat = await this.#contents.store.stat(path);
    const model = await this.#contents.get(path, {
      type: this.#type,
      ...(this.#format === 'text' ? { format: 'text' as const } : {}),
      hash: true,
    });
    this.#mtimeMs = stat?.mtimeMs ?? -1;
    this.#size = stat?.size ?? -1;
    return { content: model.content, hash: model.hash ?? '' };
  }

  /**
   * `load`, but a file that cannot be read (an editor's half-written save) is null, logged once
   * until it can be read again: the room keeps its document and never saves over the file (saves
   * carry the hash last read). A file that is gone still throws.
   */
  async loadReadable(
    path: string,
    warn: (message: string) => void,
  ): Promise<{ content: unknown; hash: string } | null> {
    try {
      const loaded = await this.load(path);
      this.#unreadable = false;
      return loaded;
    } catch (error) {
      if (error instanceof NbserveError && error.kind === 'not-found') throw error;
      if (!this.#unreadable) {
        const why = error instanceof Error ? error.message : String(error);
        warn(`${path} changed on disk and cannot be read, ignored until it can: ${why}`);
      }
      this.#unreadable = true;
      return null;
    }
  }

  /** Records what is on disk now (after a load or a save). */
  async remember(hash: string): Promise<void> {
    this.hash = hash;
    await writeFileAtomic(this.#metaFile, JSON.stringify({ hash }), { sync: false });
  }

  /**
   * Saves `content` unless the file changed since it was loaded or saved: then `changed` is true
   * and nothing was written. Invalid notebooks never reach this (rooms reject such updates), and
   * the contents API validates again and writes atomically, making the first checkpoint.
   */
  async save(path: string, content: unknown): Promise<{ changed: boolean; message: string | null }> {
    try {
      const { model } = await this.#contents.save(
        path,
        { type: this.#type, format: this.#format, content },
        this.hash === null ? {} : { hash: this.hash },
      );
      // A stat now could be of a rewrite landing just after this one: the next look reads the
      // file and compares its hash instead.
      this.#mtimeMs = -1;
      if (model.hash) await this.remember(model.hash);
      return { changed: false, message: typeof model.message === 'string' ? model.message : null };
    } catch (error) {
      if (error instanceof NbserveError && error.reason === 'changed on disk') return { changed: true, message: null };
      throw error;
    }
  }

  /** Calls `onChange` when the file may have changed; null where the store cannot watch it. */
  async watch(path: string, onChange: () => void): Promise<FileWatch | null> {
    return (await this.#contents.store.watchFile?.(path, onChange)) ?? null;
  }

  /** True when the file's size or mtime moved since it was last loaded (always after a save): a cheap stat. */
  async statChanged(path: string): Promise<boolean> {
    const stat = await this.#contents.store.stat(path);
    if (stat === null) throw notFound(`File is gone: ${path}`);
    return stat.mtimeMs !== this.#mtimeMs || stat.size !== this.#size;
  }
}

function readStoredHash(file: string): string | null {
  try {
    const meta: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isObject(meta) && typeof meta.hash === 'string' ? meta.hash : null;
  } catch {
    return null;
  }
}
