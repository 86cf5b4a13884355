import type { ContentsCache } from './cache/contents-cache.js';
import { ListedStats } from './cache/kept-listings.js';
import type { SortedNames } from './cache/sorted-names.js';
import { decodeFileContent, setHash } from './file-content.js';
import { type ListedEntry, type ListingJson, ListingWriter } from './listing-json.js';
import { guessMimeType } from './mimetypes.js';
import type { ContentsModel, ContentType, GetOptions } from './model.js';
import { decodeNotebookBytes, readNotebook, readNotebookBytes, readNotebookText } from './nbformat/notebook.js';
import type { RawStrings } from './nbformat/sorted-json.js';
import { markCells, type NotebookNotary } from './notary.js';
import { baseName, joinPath } from './paths.js';
import { byName } from './sort-names.js';
import type { ContentsStore, StoreStat } from './store.js';
import { isoTimestamp } from './timestamps.js';

const DIR_ORDER: Record<ContentType, number> = { directory: 0, notebook: 1, file: 2 };
/** Listings of at least this many entries are streamed (see ListingJson). */
const STREAM_FROM = 4096;
/** Entries stat'ed and written per part of a streamed listing (about 300 KB of JSON). */
const STREAM_BATCH = 1024;

/** A model without content: every field a GET has, in Jupyter's order; the one shape of a model. */
export function baseModel(path: string, stat: StoreStat, type: ContentType): ContentsModel {
  return {
    name: baseName(path),
    path,
    type,
    writable: stat.writable,
    created: isoTimestamp(stat.createdMs),
    last_modified: isoTimestamp(stat.mtimeMs),
    size: type === 'directory' ? null : stat.size,
    mimetype: null,
    content: null,
    format: null,
    hash: null,
    hash_algorithm: null,
  };
}

/** A stored notebook as a GET serves its content: parsed, upgraded, code cells marked trusted or not. */
export interface ServableNotebook {
  /** The stored bytes. */
  bytes: Uint8Array;
  content: unknown;
  /** nbformat validation message, if any. */
  message: string | null;
  /** Cell ids were made up (missing, or a v3 notebook): another read gives other ids. */
  generatedIds: boolean;
}

export interface ModelReaderOptions {
  store: ContentsStore;
  /** Whether a directory lists a child of this name (hidden files and hide globs are not listed). */
  listed: (name: string) => boolean;
  notary: NotebookNotary;
  /** What listings and reads reuse (sorted names, kept listings, lent memory: see servableContent). */
  cache: ContentsCache;
}

/** A notebook to serve (see ModelReader.servableContent). */
export interface ServableContent extends Omit<ServableNotebook, 'bytes'> {
  /** Bytes of the stored file. */
  size: number;
  /** Set when `content` holds markers for long strings still in the read bytes (see readNotebookBytes). */
  raw?: RawStrings;
  /** Gives back the memory the bytes were read into: call once `content` is written out. */
  release(): void;
}

/**
 * Jupyter models read from a store, as jupyter_server's `filemanager.py` builds them
 * (`_dir_model`, `_notebook_model`, `_file_model`). The manager has checked the path, its
 * visibility and the type asked for; this only reads and shapes.
 */
export class ModelReader {
  readonly #store: ContentsStore;
  readonly #listed: (name: string) => boolean;
  readonly #notary: NotebookNotary;
  readonly #cache: ContentsCache;

  constructor(options: ModelReaderOptions) {
    this.#store = options.store;
    this.#listed = options.listed;
    this.#notary = options.notary;
    this.#cache = options.cache;
  }

  async directory(
    path: string,
    stat: StoreStat,
    wantContent: boolean,
    page?: GetOptions['page'],
  ): Promise<ContentsModel> {
    const model = baseModel(path, stat, 'directory');
    if (!wantContent) return model;
    if (page) {
      // models (and, where the store can, stats) for the page only: the first rows of a
      // 100,000-entry folder cost no 100,000 stats or models
      const { entries, total } = await this.#page(path, page);
      model.content = entries.map((e) => this.#childModel(path, e));
      model.total = total;
    } else {
      // each caller gets its own copies of the shared models
      model.content = (await this.children(path)).map((child) => ({ ...child }));
    }
    model.format = 'json';
    return model;
  }

  /**
   * The sorted child models of a directory, shared: callers must not change them. Concurrent
   * requests for the same directory share one listing (50 clients refreshing a folder cost one
   * readdir and one round of stats, not 50) until a change through the manager (see ContentsCache).
   */
  children(path: string): Promise<ContentsModel[]> {
    return this.#cache.building(path, () => this.#listChildren(path));
  }

  async notebook(path: string, stat: StoreStat, wantContent: boolean, wantHash: boolean): Promise<ContentsModel> {
    const model = baseModel(path, stat, 'notebook');
    if (!wantContent && !wantHash) return model;
    let bytes: Uint8Array;
    if (wantContent) {
      const read = await this.servableNotebook(path);
      bytes = read.bytes;
      model.content = read.content;
      model.format = 'json';
      if (read.message !== null) model.message = read.message;
    } else {
      bytes = await this.#store.read(path);
    }
    model.size = bytes.byteLength;
    if (wantHash) setHash(model, bytes);
    return model;
  }

  async servableNotebook(path: string): Promise<ServableNotebook> {
    const bytes = await this.#store.read(path);
    const parsed = readNotebook(bytes, path);
    return {
      bytes,
      content: markCells(parsed.notebook, await this.isTrusted(bytes)),
      message: parsed.validationMessage,
      generatedIds: parsed.generatedIds,
    };
  }

  /**
   * servableNotebook for serving: the bytes are read into lent memory (the spare a save reads its
   * body into, so a cold open costs no fresh 20 MB), the signature checked on them, and a notebook
   * of long strings parsed without decoding them (see readNotebookBytes): its content holds
   * markers `raw` resolves, and the bytes stay until `release()`. Anything else is decoded and
   * parsed as text, and the bytes given back before the parse.
   */
  async servableContent(path: string): Promise<ServableContent> {
    const buffers = this.#cache.lent.shared;
    let lent: Uint8Array | undefined;
    const release = () => {
      if (lent) buffers.give(lent);
      lent = undefined;
    };
    try {
      const bytes = this.#store.readInto
        ? await this.#store.readInto(path, (length) => (lent = buffers.take(length)))
        : await this.#store.read(path);
      const size = bytes.byteLength;
      const trusted = await this.isTrusted(bytes);
      const cut = readNotebookBytes(bytes);
      if (cut !== null) {
        const { notebook, generatedIds, raw } = cut;
        return { size, content: markCells(notebook, trusted), message: null, generatedIds, raw, release };
      }
      const text = decodeNotebookBytes(bytes, path);
      release(); // the text is a copy
      const parsed = readNotebookText(text, path);
      return {
        size,
        content: markCells(parsed.notebook, trusted),
        message: parsed.validationMessage,
        generatedIds: parsed.generatedIds,
        release,
      };
    } catch (error) {
      release();
      throw error;
    }
  }

  async file(
    path: string,
    stat: StoreStat,
    wantContent: boolean,
    format: GetOptions['format'],
    wantHash: boolean,
  ): Promise<ContentsModel> {
    const model = baseModel(path, stat, 'file');
    model.mimetype = guessMimeType(model.name);
    if (!wantContent && !wantHash) return model;
    const bytes = await this.#store.read(path);
    model.size = bytes.byteLength;
    if (wantContent) {
      const { content, format: used } = decodeFileContent(path, bytes, format);
      model.content = content;
      model.format = used;
      model.mimetype ??= used === 'text' ? 'text/plain' : 'application/octet-stream';
    }
    if (wantHash) setHash(model, bytes);
    return model;
  }

  /**
   * Trust is per stored bytes: one HMAC over the file, never a re-serialization of the notebook
   * (that would double the cost of opening a 20 MB notebook). Everything this server saves is
   * already in nbformat's layout; a notebook rewritten by another tool must be trusted again.
   */
  async isTrusted(bytes: Uint8Array): Promise<boolean> {
    try {
      return await this.#notary.isSigned(bytes);
    } catch {
      return false; // an unreadable signature store costs trust, not the notebook
    }
  }

  /**
   * The JSON of the listed children: exactly `JSON.stringify` of `children(path)`, except that a
   * child gone between the readdir and its stat is left out silently. A directory that cannot be
   * read throws here, before any byte.
   */
  async childrenJson(path: string): Promise<ListingJson> {
    const kept = await this.#cache.keptListings.get(path);
    if (kept !== null) {
      const { names, stats } = kept;
      return this.#json(path, names.length, () => ({
        write: (writer, start, end) =>
          stats.each(start, end, (i, stat) => {
            const name = names[i] as string;
            writer.entry(name, typeOf(name, stat.kind), stat);
          }),
      }));
    }
    // the sorted names of a big directory are reused as for pages; its entries are stat'ed afresh
    // (and recorded, where the listing may be kept)
    const listed = await this.#listedNames(path);
    if (listed === null) {
      const writer = new ListingWriter(path);
      writer.open();
      for (const { name, type, stat } of await this.#sortedEntries(path)) writer.entry(name, type, stat);
      writer.close();
      return writer.take();
    }
    const { names, version, directories, links } = listed;
    // symbolic links are listed by where they lead, which no watch of this directory sees change
    const keep = links === 0 ? await this.#cache.keptListings.watch(path, version, names, directories) : null;
    return this.#json(path, names.length, () => {
      // where the listing may be kept, each pass records its stats: the first pass done is kept
      const stats = keep ? new ListedStats(names.length) : undefined;
      return {
        write: (writer, start, end) => this.#writeEntries(writer, path, names, start, end, stats),
        done: () => stats && keep?.(stats),
      };
    });
  }

  /**
   * A listing of `count` entries, each pass over them made by `pass()`: whole below STREAM_FROM
   * entries, else a function that streams a new pass on each call.
   */
  async #json(path: string, count: number, pass: () => ListingPass): Promise<ListingJson> {
    if (count >= STREAM_FROM) return () => this.#streamJson(path, count, pass());
    const { write, done } = pass();
    const writer = new ListingWriter(path, 512 + 300 * count);
    writer.open();
    await write(writer, 0, count);
    writer.close();
    done?.();
    return writer.take();
  }

  async *#streamJson(
    path: string,
    count: number,
    { write, done }: ListingPass,
  ): AsyncGenerator<Uint8Array<ArrayBuffer>> {
    const writer = new ListingWriter(path, 512 + 300 * STREAM_BATCH);
    writer.open();
    for (let start = 0; start < count; start += STREAM_BATCH) {
      await write(writer, start, Math.min(start + STREAM_BATCH, count));
      if (start + STREAM_BATCH >= count) writer.close();
      yield writer.take();
    }
    done?.();
  }

  /** Stats `names[start..end)` and writes those still there (recording their stats in `record`). */
  async #writeEntries(
    writer: ListingWriter,
    path: string,
    names: readonly string[],
    start: number,
    end: number,
    record?: ListedStats,
  ) {
    if (this.#store.statChildrenEach) {
      // no stats array, no StoreStat per entry: each stat becomes bytes at once
      await this.#store.statChildrenEach(path, names, start, end, (i, stat) => {
        const name = names[i] as string;
        writer.entry(name, typeOf(name, stat.kind), stat);
        record?.set(i, stat);
      });
      return;
    }
    const part = start === 0 && end === names.length ? names : names.slice(start, end);
    const stats = await this.#statChildren(path, part);
    part.forEach((name, i) => {
      const stat = stats[i];
      if (!stat) return;
      writer.entry(name, typeOf(name, stat.kind), stat);
      record?.set(start + i, stat);
    });
  }

  #statChildren(path: string, names: readonly string[]): Promise<(StoreStat | null)[]> {
    if (this.#store.statChildren) {
      return this.#store.statChildren(path, names);
    }
    return Promise.all(names.map((name) => this.#store.stat(joinPath(path, name))));
  }

  /**
   * The listed children's names, sorted as the listing is (subdirectories first), before any
   * stat (just the names: a 100,000-entry directory leaves nothing else behind), and how many
   * symbolic links the directory has (unknown: Infinity); `null` if the store cannot.
   */
  async #sortedNames(path: string): Promise<(SortedNames & { links: number }) | null> {
    if (!this.#store.listKinds) return null;
    const { files, directories, links = Number.POSITIVE_INFINITY } = await this.#store.listKinds(path);
    const notebooks: string[] = [];
    const others: string[] = [];
    for (const name of files) {
      if (this.#listed(name)) (name.endsWith('.ipynb') ? notebooks : others).push(name);
    }
    const listedDirectories = byName(directories.filter(this.#listed));
    return {
      names: [...listedDirectories, ...byName(notebooks), ...byName(others)],
      directories: listedDirectories.length,
      links,
    };
  }

  /** Listed children, hidden ones left out: directories, then notebooks, then files, by name. */
  async #listChildren(path: string): Promise<ContentsModel[]> {
    // Models in that order: files made together follow each other and share isoTimestamp's second.
    return (await this.#sortedEntries(path)).map((entry) => this.#childModel(path, entry));
  }

  #childModel(dir: string, { name, type, stat }: ListedEntry): ContentsModel {
    const model = baseModel(joinPath(dir, name), stat, type);
    if (type === 'file') model.mimetype = guessMimeType(name);
    return model;
  }

  async #page(
    path: string,
    page: { offset: number; limit: number },
  ): Promise<{ entries: ListedEntry[]; total: number }> {
    const names = (await this.#listedNames(path))?.names ?? null;
    if (names === null) {
      const all = await this.#sortedEntries(path);
      return { entries: all.slice(page.offset, page.offset + page.limit), total: all.length };
    }
    const slice = names.slice(page.offset, page.offset + page.limit);
    const stats = await this.#statChildren(path, slice);
    const entries: ListedEntry[] = [];
    slice.forEach((name, i) => {
      const stat = stats[i];
      // an entry gone since the readdir is left out of its page (the total counted it)
      if (stat) entries.push({ name, type: typeOf(name, stat.kind), stat });
    });
    return { entries, total: names.length };
  }

  /**
   * #sortedNames, reused while the directory's version (taken before reading it) holds, with that
   * version (`null`: none).
   */
  async #listedNames(path: string): Promise<(SortedNames & { links: number; version: string | null }) | null> {
    const version = (await this.#store.directoryVersion?.(path)) ?? null;
    const cached = version === null ? undefined : this.#cache.sortedNames.get(path, version);
    if (cached) return { ...cached, links: 0, version };
    const listed = await this.#sortedNames(path);
    // symbolic links are listed by where they lead, which can change with no version change
    if (listed !== null && version !== null && listed.links === 0) this.#cache.sortedNames.set(path, version, listed);
    return listed && { ...listed, version };
  }

  async #sortedEntries(path: string): Promise<ListedEntry[]> {
    const children: (ListedEntry & { key: string })[] = [];
    for (const { name, stat } of await this.#store.list(path)) {
      if (!this.#listed(name)) continue;
      children.push({ name, type: typeOf(name, stat.kind), stat, key: name.toLowerCase() });
    }
    children.sort(byKindThenName);
    return children;
  }
}

function typeOf(name: string, kind: 'file' | 'directory'): ContentType {
  return kind === 'directory' ? 'directory' : name.endsWith('.ipynb') ? 'notebook' : 'file';
}

/** Case-insensitive within each kind (IPython 3 order). */
function byKindThenName(a: { type: ContentType; key: string }, b: { type: ContentType; key: string }): number {
  return DIR_ORDER[a.type] - DIR_ORDER[b.type] || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** One pass over a listing's entries: `write` writes those of [start, end), `done` follows the last. */
interface ListingPass {
  write: (writer: ListingWriter, start: number, end: number) => Promise<void> | void;
  done?: () => void;
}
