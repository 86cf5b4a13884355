import { randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as v from 'valibot';
import { writeFileAtomic } from '../util/atomic-write.js';

/** Ids are uuid4 with dashes; the older routes match exactly this shape. */
export const LEGACY_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const Persisted = v.object({
  version: v.literal(1),
  notebooks: v.record(v.pipe(v.string(), v.regex(LEGACY_ID_PATTERN)), v.string()),
});

export interface LegacyNotebookRegistryOptions {
  /** JSON file the map is kept in; omitted = memory only (ids live as long as the process). */
  file?: string;
}

/**
 * Legacy notebook ids: uuid aliases of top-level `<name>.ipynb` paths (paths stay the primary
 * key). Persisted atomically so ids survive restarts, moved along on renames, dropped when the
 * file is gone.
 */
export class LegacyNotebookRegistry {
  private readonly file: string | undefined;
  private readonly byId = new Map<string, string>();
  private readonly byPath = new Map<string, string>();
  private writing: Promise<void> = Promise.resolve();
  private loading: Promise<void> | undefined;

  constructor(options: LegacyNotebookRegistryOptions = {}) {
    this.file = options.file;
  }

  /** Loads the persisted map once, on first use; a missing or corrupt file starts an empty one. */
  private load(): Promise<void> {
    this.loading ??= (async () => {
      if (!this.file) return;
      const raw = await readFile(this.file, 'utf8').catch(() => undefined);
      if (raw === undefined) return;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const parsed = v.safeParse(Persisted, json);
      if (!parsed.success) {
        console.error(`[nbserve] ignoring unreadable legacy notebook id file ${this.file}`);
        return;
      }
      for (const [id, path] of Object.entries(parsed.output.notebooks)) this.set(id, path);
    })();
    return this.loading;
  }

  async pathFor(id: string): Promise<string | undefined> {
    await this.load();
    return this.byId.get(id);
  }

  /** The id of a path; allocated (and persisted) on first use. */
  async idFor(path: string): Promise<string> {
    await this.load();
    const existing = this.byPath.get(path);
    if (existing) return existing;
    const id = randomUUID();
    this.set(id, path);
    await this.persist();
    return id;
  }

  /**
   * Reconciles with the top-level notebooks that exist now: ids of vanished files are dropped,
   * new files get ids. Returns path -> id for `paths`.
   */
  async sync(paths: readonly string[]): Promise<Map<string, string>> {
    await this.load();
    const present = new Set(paths);
    let changed = false;
    for (const [path, id] of [...this.byPath]) {
      if (present.has(path)) continue;
      this.byPath.delete(path);
      this.byId.delete(id);
      changed = true;
    }
    for (const path of paths) {
      if (this.byPath.has(path)) continue;
      this.set(randomUUID(), path);
      changed = true;
    }
    if (changed) await this.persist();
    return new Map(paths.map((p) => [p, this.byPath.get(p) as string]));
  }

  /** A mapped file moved: its id follows it (a rename made through the current API). */
  async renamed(from: string, to: string): Promise<void> {
    await this.load();
    const id = this.byPath.get(from);
    if (!id) return;
    this.byPath.delete(from);
    const displaced = this.byPath.get(to);
    if (displaced) this.byId.delete(displaced);
    this.set(id, to);
    await this.persist();
  }

  async removed(path: string): Promise<void> {
    await this.load();
    const id = this.byPath.get(path);
    if (!id) return;
    this.byPath.delete(path);
    this.byId.delete(id);
    await this.persist();
  }

  private set(id: string, path: string): void {
    this.byId.set(id, path);
    this.byPath.set(path, id);
  }

  /** Writes are serialized and atomic (temp file + rename): a crash leaves the old or new map. */
  private persist(): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    const snapshot = JSON.stringify({ version: 1, notebooks: Object.fromEntries(this.byId) }, null, 1);
    this.writing = this.writing
      .catch(() => {})
      .then(async () => {
        await mkdir(dirname(file), { recursive: true, mode: 0o700 });
        await writeFileAtomic(file, snapshot, { sync: false });
      });
    return this.writing;
  }
}
