import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { isObject } from '../util/is-object.js';

/**
 * A small persistent index of file ids: an id, once given to a path, follows that path through
 * renames made with the contents API (a directory rename moves the ids of everything under it),
 * so a shared document and its update log stay attached to the file. The ids are UUIDs, as
 * jupyter_server_fileid's (https://github.com/jupyter-server/jupyter_server_fileid).
 */
export class FileIdIndex {
  readonly #file: string;
  readonly #paths = new Map<string, string>(); // id -> path
  readonly #ids = new Map<string, string>(); // path -> id
  #writing: Promise<void> = Promise.resolve();

  constructor(file: string) {
    this.#file = file;
    mkdirSync(path.dirname(file), { recursive: true });
    let stored: unknown;
    try {
      stored = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      stored = null; // missing or unreadable: start empty
    }
    const ids = isObject(stored) && isObject(stored.ids) ? stored.ids : {};
    for (const [id, p] of Object.entries(ids)) if (typeof p === 'string') this.#set(id, p);
  }

  getId(apiPath: string): string | undefined {
    return this.#ids.get(apiPath);
  }

  getPath(id: string): string | undefined {
    return this.#paths.get(id);
  }

  /** The path's id, created (and persisted) when it has none yet. */
  async index(apiPath: string): Promise<string> {
    const known = this.#ids.get(apiPath);
    if (known) return known;
    const id = randomUUID();
    this.#set(id, apiPath);
    await this.#persist();
    return id;
  }

  /** `from` (a file or a directory) is now `to`: its id, and those of everything under it, move along. */
  async renamed(from: string, to: string): Promise<void> {
    let changed = false;
    for (const [id, p] of [...this.#paths]) {
      if (p !== from && !p.startsWith(`${from}/`)) continue;
      this.#ids.delete(p);
      this.#set(id, to + p.slice(from.length));
      changed = true;
    }
    if (changed) await this.#persist();
  }

  /** `gone` (a file or directory) was deleted: its ids are forgotten. */
  async deleted(gone: string): Promise<void> {
    let changed = false;
    for (const [id, p] of [...this.#paths]) {
      if (p !== gone && !p.startsWith(`${gone}/`)) continue;
      this.#paths.delete(id);
      this.#ids.delete(p);
      changed = true;
    }
    if (changed) await this.#persist();
  }

  #set(id: string, apiPath: string): void {
    const previous = this.#ids.get(apiPath);
    if (previous !== undefined && previous !== id) this.#paths.delete(previous);
    this.#paths.set(id, apiPath);
    this.#ids.set(apiPath, id);
  }

  /** Writes are serialized so an older snapshot never lands after a newer one. */
  #persist(): Promise<void> {
    const snapshot = JSON.stringify({ version: 1, ids: Object.fromEntries(this.#paths) });
    this.#writing = this.#writing.catch(() => undefined).then(() => writeFileAtomic(this.#file, snapshot));
    return this.#writing;
  }
}
