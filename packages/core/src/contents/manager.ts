import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { badRequest, conflict, notFound } from '../errors.js';
import { SpareBuffer } from '../util/spare-buffer.js';
import { isWellFormedText } from '../util/unicode.js';
import { decodeBase64Strict, encodeBase64Lines } from './base64.js';
import type { CheckpointStore } from './checkpoints.js';
import { FileCheckpointStore } from './file-checkpoints.js';
import { FileSystemStore } from './fs-store.js';
import { compileGlobs, DEFAULT_HIDE_GLOBS, isHiddenPath } from './hidden.js';
import { KeyedLock } from './keyed-lock.js';
import { MemoryCheckpointStore } from './memory-checkpoints.js';
import { MemoryStore } from './memory-store.js';
import { guessMimeType } from './mimetypes.js';
import {
  type CheckpointModel,
  type ContentFormat,
  type ContentsModel,
  type ContentType,
  HASH_ALGORITHM,
} from './model.js';
import { incrementName, stripCopySuffix } from './naming.js';
import { newNotebook, readNotebook, serializeNotebook, toNotebookV4 } from './nbformat/notebook.js';
import { allCellsTrusted, markCells, NotebookNotary } from './notary.js';
import { baseName, isValidName, joinPath, normalizeApiPath, parentPath } from './paths.js';
import { type ServedNotebook, ServedNotebookCache } from './served-notebook-cache.js';
import type { ByteRange, ContentsStore, StoreStat } from './store.js';
import { isoTimestamp, parseTimestampMicros } from './timestamps.js';

export interface ContentsManagerOptions {
  store: ContentsStore;
  /** Default: Jupyter's `.ipynb_checkpoints` layout inside the same store. */
  checkpoints?: CheckpointStore;
  /** Serve, list and write dot-files. Default false. */
  allowHidden?: boolean;
  /** fnmatch globs of names left out of listings (still readable by path). */
  hideGlobs?: readonly string[];
  untitledNotebook?: string;
  untitledFile?: string;
  untitledDirectory?: string;
  /** Largest directory tree `copy` duplicates, in bytes. Default 500 MB, as jupyter_server. */
  maxCopyFolderBytes?: number;
  /** Signs trusted notebooks; default an in-memory notary (trust lasts for the process). */
  notary?: NotebookNotary;
  /** Bytes of served notebook JSON kept for reopening unchanged notebooks. Default 64 MiB; 0 = off. */
  notebookCacheBytes?: number;
}

/** A model and its JSON as UTF-8 (see `ContentsManager.getSerialized`). */
export interface SerializedModel {
  /** The model; for a notebook its `content` is `null` (it is only in `json`). */
  model: ContentsModel;
  /** Exactly the UTF-8 bytes of `JSON.stringify` of the full model. */
  json: Uint8Array<ArrayBuffer>;
}

export interface GetOptions {
  /** Force the interpretation (`type=file` on a notebook returns its raw text). */
  type?: ContentType;
  format?: 'text' | 'base64';
  /** Default true. */
  content?: boolean;
  /** Add `hash`/`hash_algorithm` (sha256 of the stored bytes). Default false. */
  hash?: boolean;
  /**
   * Directories only, an nbserve extension: return the sorted listing from `offset`, at most
   * `limit` entries, and the full count in `total`. Without it the model is exactly Jupyter's.
   */
  page?: { offset: number; limit: number };
}

/** A PUT body as the client sent it; the manager checks it with Jupyter's messages. */
export interface SaveInput {
  type?: string | undefined;
  format?: string | null | undefined;
  content?: unknown;
  /** Chunked upload: 1 = first chunk (truncate), 2.. = append, -1 = last chunk. */
  chunk?: number | undefined;
  /** The path the body names (clients echo models back): a hidden one is refused, as in jupyter_server. */
  path?: string | null | undefined;
}

/**
 * Save-conflict protection beyond Jupyter: the save only happens when the stored file still is
 * what the client last saw. Either field may be given; a mismatch is a 409 and nothing is written.
 */
export interface SavePrecondition {
  /** sha256 hex of the stored bytes (HTTP `If-Match`). */
  hash?: string;
  /** ISO (microseconds honoured) or RFC 1123 time (HTTP `If-Unmodified-Since`). */
  lastModified?: string;
}

export interface SaveResult {
  model: ContentsModel;
  /**
   * True unless a file existed at the path before: PUT answers 201 instead of 200. As in
   * jupyter_server, a directory PUT onto an existing directory also counts as created.
   */
  created: boolean;
}

export interface OpenedFile {
  name: string;
  path: string;
  size: number;
  lastModifiedMs: number;
  mimetype: string | null;
  stream: ReadableStream<Uint8Array>;
}

const CHECKPOINT_DIR = '.ipynb_checkpoints';
const MAX_COPY_DEPTH = 64;
const TYPES: ReadonlySet<string> = new Set(['directory', 'notebook', 'file']);
const DIR_ORDER: Record<ContentType, number> = { directory: 0, notebook: 1, file: 2 };
const CONTENT_PLACEHOLDER = '"content":null';
/** Bytes hashed between two turns of the event loop (about half a millisecond). */
const HASH_SLICE = 1024 * 1024;
/** How long a directory's serialized listing is reused (see #servedListing). */
const LISTING_REUSE_MS = 100;
const MAX_SERVED_LISTINGS = 256;

/**
 * Jupyter contents semantics (jupyter_server's /api/contents) over a ContentsStore: models, formats, hashes, untitled
 * and copy naming, rename/delete rules, hidden files, notebooks validated as nbformat v4, checkpoints.
 */
export class ContentsManager {
  readonly store: ContentsStore;
  readonly checkpoints: CheckpointStore;
  readonly allowHidden: boolean;
  readonly #hidden: (name: string) => boolean;
  readonly #untitled: { notebook: string; file: string; directory: string };
  readonly #maxCopyBytes: number;
  readonly #locks = new KeyedLock();
  readonly #notary: NotebookNotary;
  /** Directory listings being built, shared by concurrent requests for the same directory. */
  readonly #listings = new Map<string, Promise<ContentsModel[]>>();
  readonly #served: ServedNotebookCache;
  /**
   * The buffer notebooks are serialized into, reused from save to save (see SpareBuffer): only
   * with this package's stores, which write out or copy what they are given and keep nothing.
   */
  readonly #saveBuffers: SpareBuffer | undefined;
  /** Serialized listings reused for LISTING_REUSE_MS while the directory's mtime is unchanged. */
  readonly #servedListings = new Map<string, { dirMtimeMs: number; at: number; json: Promise<Uint8Array> }>();
  /** Bumped whenever something is signed: a verdict read before that must not be cached after. */
  #trustGeneration = 0;

  constructor(options: ContentsManagerOptions) {
    this.store = options.store;
    this.checkpoints = options.checkpoints ?? new FileCheckpointStore(options.store);
    this.allowHidden = options.allowHidden ?? false;
    this.#hidden = compileGlobs(options.hideGlobs ?? DEFAULT_HIDE_GLOBS);
    this.#untitled = {
      notebook: options.untitledNotebook ?? 'Untitled',
      file: options.untitledFile ?? 'untitled',
      directory: options.untitledDirectory ?? 'Untitled Folder',
    };
    for (const base of Object.values(this.#untitled)) {
      if (!isValidName(base)) throw badRequest(`Invalid untitled base name: ${JSON.stringify(base)}`);
    }
    this.#maxCopyBytes = options.maxCopyFolderBytes ?? 500 * 1024 * 1024;
    this.#notary = options.notary ?? new NotebookNotary();
    this.#served = new ServedNotebookCache(options.notebookCacheBytes ?? 64 * 1024 * 1024);
    const ownStores =
      (this.store instanceof FileSystemStore || this.store instanceof MemoryStore) &&
      (this.checkpoints instanceof FileCheckpointStore || this.checkpoints instanceof MemoryCheckpointStore);
    this.#saveBuffers = ownStores ? new SpareBuffer() : undefined;
  }

  /** True when the path is hidden and hidden files are not allowed. */
  isHidden(path: string): boolean {
    return !this.allowHidden && isHiddenPath(path);
  }

  async exists(rawPath: string): Promise<boolean> {
    const path = normalizeApiPath(rawPath);
    return !this.isHidden(path) && (await this.store.stat(path)) !== null;
  }

  // --- read ---------------------------------------------------------------------------------

  async get(rawPath: string, options: GetOptions = {}): Promise<ContentsModel> {
    const path = normalizeApiPath(rawPath);
    const stat = await this.#visibleStat(path);
    const wantContent = options.content ?? true;
    if (stat.kind === 'directory') {
      if (options.type && options.type !== 'directory') {
        throw badRequest(`${path} is a directory, not a ${options.type}`, 'bad type');
      }
      return this.#directoryModel(path, stat, wantContent, options.page);
    }
    if (options.type === 'directory') throw badRequest(`${path} is not a directory`, 'bad type');
    const type = options.type ?? (path.endsWith('.ipynb') ? 'notebook' : 'file');
    if (type === 'notebook') return this.#notebookModel(path, stat, wantContent, options.hash ?? false);
    return this.#fileModel(path, stat, wantContent, options.format, options.hash ?? false);
  }

  /**
   * `get` with the model already serialized, for answering over the wire. A notebook's content
   * comes from its cached JSON text while the file is unchanged (see ServedNotebookCache), so
   * reopening a big notebook never parses, re-serializes or re-encodes it; the bytes are those of
   * `JSON.stringify(await get(path, options))`.
   */
  async getSerialized(rawPath: string, options: GetOptions = {}): Promise<SerializedModel> {
    const path = normalizeApiPath(rawPath);
    const stat = await this.#visibleStat(path);
    const type = options.type ?? (path.endsWith('.ipynb') ? 'notebook' : 'file');
    if (
      stat.kind === 'directory' &&
      (options.type ?? 'directory') === 'directory' &&
      options.content !== false &&
      !options.page
    ) {
      const model = this.#baseModel(path, stat, 'directory');
      model.format = 'json';
      return { model, json: spliceContent(model, await this.#servedListing(path, stat)) };
    }
    if (stat.kind !== 'file' || type !== 'notebook' || options.content === false || options.hash) {
      const model = await this.get(path, options);
      return { model, json: Buffer.from(JSON.stringify(model)) };
    }
    const served = await this.#servedNotebook(path, stat);
    const model = this.#baseModel(path, stat, 'notebook');
    model.size = served.size;
    model.format = 'json';
    if (served.message !== null) model.message = served.message;
    return { model, json: spliceContent(model, served.contentJson) };
  }

  /**
   * A directory's content as JSON. Clients poll listings (JupyterLab every few seconds, from every
   * tab), so one listing serves every request for LISTING_REUSE_MS as long as the directory's
   * mtime is unchanged (an entry was added, removed or renamed) and nothing was written through
   * this manager; only an in-place edit made outside the server shows up that much later.
   */
  async #servedListing(path: string, stat: StoreStat): Promise<Uint8Array> {
    const cached = this.#servedListings.get(path);
    const now = performance.now();
    if (cached && cached.dirMtimeMs === stat.mtimeMs && now - cached.at < LISTING_REUSE_MS) return cached.json;
    if (this.#servedListings.size >= MAX_SERVED_LISTINGS) this.#servedListings.clear();
    // Requests arriving while it is built share it too; a write through the manager clears the map.
    const json = this.#listingJson(path);
    const entry = { dirMtimeMs: stat.mtimeMs, at: now, json };
    this.#servedListings.set(path, entry);
    json.catch(() => {
      if (this.#servedListings.get(path) === entry) this.#servedListings.delete(path);
    });
    return json;
  }

  async #servedNotebook(path: string, stat: StoreStat): Promise<ServedNotebook> {
    const cached = this.#served.get(path, stat);
    if (cached) return cached;
    const generation = this.#trustGeneration;
    const bytes = await this.store.read(path);
    const parsed = readNotebook(bytes, path);
    const trusted = await this.#isTrusted(bytes);
    const served: ServedNotebook = {
      contentJson: Buffer.from(JSON.stringify(markCells(parsed.notebook, trusted))),
      size: bytes.byteLength,
      message: parsed.validationMessage,
    };
    // Made-up cell ids differ on every read in Jupyter too; such a notebook is not pinned to one set.
    const unchanged = bytes.byteLength === stat.size && generation === this.#trustGeneration;
    if (!parsed.generatedIds && unchanged) this.#served.set(path, stat, served);
    return served;
  }

  /**
   * Raw bytes of a file as a stream, for `/files/`: hidden and missing paths are 404 alike.
   * `range` picks a part: it gets the file's size and answers the inclusive range to serve
   * (or `null` for all of it), so callers can resolve `bytes=-500` style requests.
   */
  async openFile(
    rawPath: string,
    range?: (size: number) => ByteRange | null,
  ): Promise<OpenedFile & { range: ByteRange | null }> {
    const path = normalizeApiPath(rawPath);
    const stat = await this.#visibleStat(path);
    if (stat.kind !== 'file') throw notFound(`File does not exist: ${path}`);
    const wanted = range ? range(stat.size) : null;
    const opened = await this.store.readStream(path, wanted ?? undefined);
    const name = baseName(path);
    return {
      name,
      path,
      size: opened.stat.size,
      lastModifiedMs: opened.stat.mtimeMs,
      mimetype: guessMimeType(name),
      stream: opened.stream,
      range: wanted,
    };
  }

  // --- write --------------------------------------------------------------------------------

  async save(rawPath: string, given: SaveInput, precondition: SavePrecondition = {}): Promise<SaveResult> {
    const path = normalizeApiPath(rawPath);
    if (path === '') throw badRequest('Cannot save over the root directory');
    if (this.isHidden(path) || (given.path && this.isHidden(given.path))) {
      throw badRequest(`Cannot create file or directory '${path}'`);
    }

    return this.#mutating(() =>
      this.#locks.run(path, async () => {
        const existing = await this.store.stat(path);
        // Where no file exists yet, Jupyter goes through `new()`: the type follows the extension and
        // a missing content is an empty notebook or text file (the spec's "new empty notebook").
        const input = existing?.kind === 'file' ? given : withNewFileDefaults(path, given);
        if (input.type === undefined) throw badRequest('No file type provided');
        if (!TYPES.has(input.type)) throw badRequest(`Unhandled contents type: ${input.type}`, 'bad type');
        const type = input.type as ContentType;
        if (type !== 'directory' && input.content === undefined) throw badRequest('No file content provided');
        await this.#checkPrecondition(path, existing, precondition);
        if (input.chunk !== undefined) return this.#saveChunk(path, type, input, existing);
        if (type === 'directory') {
          if (existing?.kind === 'file') throw badRequest(`Not a directory: ${path}`, 'bad type');
          if (existing === null) await this.store.mkdir(path);
          return { model: await this.get(path, { content: false }), created: true };
        }
        if (existing?.kind === 'directory') throw badRequest(`${path} is a directory`, 'bad type');
        let bytes: Uint8Array;
        let message: string | null = null;
        let trusted = false;
        const buffers = type === 'notebook' ? this.#saveBuffers : undefined;
        if (type === 'notebook') {
          const parsed = toNotebookV4(input.content, `Invalid notebook content for ${path}`);
          bytes = serializeNotebook(parsed.notebook, buffers);
          message = parsed.validationMessage;
          trusted = allCellsTrusted(parsed.notebook);
        } else {
          bytes = encodeFileContent(path, input.content, input.format);
        }
        let hash: string;
        try {
          hash = await this.#writeHashed(path, bytes);
          if (trusted) await this.#signQuietly(bytes);
          // One checkpoint always exists for a notebook once it has been saved, as in Jupyter.
          if (type === 'notebook' && (await this.checkpoints.list(path)).length === 0) {
            await this.checkpoints.create(path, bytes);
          }
        } finally {
          buffers?.give(bytes); // nothing reads the bytes any more
        }
        const model = await this.get(path, { content: false, type });
        model.hash = hash;
        model.hash_algorithm = HASH_ALGORITHM;
        if (message !== null) model.message = message;
        return { model, created: existing === null };
      }),
    );
  }

  /** Writes a file and returns its sha256; a big file is hashed while it is written and synced. */
  async #writeHashed(path: string, bytes: Uint8Array): Promise<string> {
    // settle both before returning: the caller reuses the buffer once this returns
    const [written, hashed] = await Promise.allSettled([this.store.write(path, bytes), sha256Async(bytes)]);
    if (written.status === 'rejected') throw written.reason;
    if (hashed.status === 'rejected') throw hashed.reason;
    return hashed.value;
  }

  async #saveChunk(path: string, type: ContentType, input: SaveInput, existing: StoreStat | null): Promise<SaveResult> {
    const chunk = input.chunk as number;
    if (type !== 'file') throw badRequest(`File type "${type}" is not supported for large file transfer`, 'bad type');
    if (!Number.isInteger(chunk) || (chunk < 1 && chunk !== -1)) throw badRequest(`Invalid chunk: ${chunk}`);
    if (existing?.kind === 'directory') throw badRequest(`${path} is a directory`, 'bad type');
    const bytes = encodeFileContent(path, input.content, input.format);
    if (chunk === 1) await this.store.write(path, bytes);
    else await this.store.append(path, bytes);
    return { model: await this.get(path, { content: false, type: 'file' }), created: existing === null };
  }

  async #checkPrecondition(path: string, existing: StoreStat | null, expected: SavePrecondition): Promise<void> {
    if (expected.hash === undefined && expected.lastModified === undefined) return;
    const changed = () => conflict(`File changed on disk since it was loaded: ${path}`, 'changed on disk');
    if (existing?.kind !== 'file') throw changed();
    if (expected.lastModified !== undefined) {
      const expectedMicros = parseTimestampMicros(expected.lastModified);
      if (expectedMicros === null) throw badRequest(`Invalid timestamp: ${expected.lastModified}`);
      // Compare at the precision the client sent: seconds for RFC 1123, microseconds for ISO.
      const precise = /\.\d/.test(expected.lastModified);
      const actual = precise ? Math.floor(existing.mtimeMs * 1000) : Math.floor(existing.mtimeMs / 1000) * 1_000_000;
      if (actual > expectedMicros) throw changed();
    }
    if (expected.hash !== undefined) {
      const want = expected.hash.trim().replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
      if (want !== '*' && sha256(await this.store.read(path)) !== want) throw changed();
    }
  }

  /** POST to a directory: a new untitled notebook, file or folder, named as Jupyter names them. */
  async newUntitled(rawDir: string, options: { type?: string; ext?: string } = {}): Promise<ContentsModel> {
    const dir = normalizeApiPath(rawDir);
    if (this.isHidden(dir)) throw badRequest(`Cannot create file or directory '${dir}'`);
    await this.#requireDirectory(dir);
    let ext = options.ext ?? '';
    const type = options.type || (ext === '.ipynb' ? 'notebook' : 'file');
    let base: string;
    let insert = '';
    if (type === 'directory') {
      base = this.#untitled.directory;
      insert = ' ';
      ext = '';
    } else if (type === 'notebook') {
      base = this.#untitled.notebook;
      ext = '.ipynb';
    } else if (type === 'file') {
      base = this.#untitled.file;
    } else {
      throw badRequest(`Unexpected model type: '${type}'`, 'bad type');
    }
    if (!isValidName(base + ext)) throw badRequest(`Invalid extension: ${JSON.stringify(ext)}`, 'bad name');
    return this.#mutating(() =>
      this.#locks.run(`dir:${dir}`, async () => {
        const name = await incrementName(base + ext, insert, (n) => this.#occupied(joinPath(dir, n)));
        const path = joinPath(dir, name);
        if (type === 'directory') await this.store.mkdir(path);
        else if (type === 'notebook') await this.save(path, { type, content: newNotebook() });
        else await this.store.write(path, new Uint8Array());
        return this.get(path, { content: false });
      }),
    );
  }

  /** POST `{copy_from}` to a directory: the target must be an existing, visible directory. */
  async copyInto(rawFrom: string, rawDir: string): Promise<ContentsModel> {
    const dir = normalizeApiPath(rawDir);
    if (this.isHidden(dir)) throw badRequest(`Cannot copy file or directory '${dir}'`);
    await this.#requireDirectory(dir);
    return this.copy(rawFrom, dir);
  }

  /**
   * Copies a file or directory. Into an existing directory the name is incremented with `-Copy`
   * (after stripping an existing `-CopyN`); to a free path the copy lands exactly there.
   */
  async copy(rawFrom: string, rawTo: string): Promise<ContentsModel> {
    const from = normalizeApiPath(rawFrom);
    const to = normalizeApiPath(rawTo);
    for (const p of [from, to]) if (this.isHidden(p)) throw badRequest(`Cannot copy file or directory '${p}'`);
    if (from === '') throw badRequest('Cannot copy the root directory');
    const source = await this.store.stat(from);
    if (source === null) throw notFound(`File or directory does not exist: ${from}`);
    return this.#mutating(() =>
      this.#locks.run(`dir:${to}`, async () => {
        const target = await this.store.stat(to);
        let path: string;
        if (target?.kind === 'directory') {
          const name = source.kind === 'directory' ? baseName(from) : stripCopySuffix(baseName(from));
          path = joinPath(to, await incrementName(name, '-Copy', (n) => this.#occupied(joinPath(to, n))));
        } else if (target === null) {
          const parent = await this.store.stat(parentPath(to));
          if (parent?.kind !== 'directory') throw notFound(`No such parent directory: ${parentPath(to) || '/'}`);
          path = to;
        } else {
          throw conflict(`File already exists: ${to}`);
        }
        if (source.kind === 'directory') {
          if (path.startsWith(`${from}/`)) throw badRequest(`Cannot copy ${from} into itself`);
          await this.#checkCopySize(from);
          await this.#copyTree(from, path);
        } else {
          const bytes = await this.store.read(from);
          await this.store.write(path, bytes);
          if (path.endsWith('.ipynb') && (await this.checkpoints.list(path)).length === 0) {
            await this.checkpoints.create(path, bytes);
          }
        }
        return this.get(path, { content: false });
      }),
    );
  }

  async rename(rawFrom: string, rawTo: string): Promise<ContentsModel> {
    const from = normalizeApiPath(rawFrom);
    const to = normalizeApiPath(rawTo);
    for (const p of [from, to]) if (this.isHidden(p)) throw badRequest(`Cannot rename file or directory '${p}'`);
    if (from === '' || to === '') throw badRequest('Cannot rename the root directory');
    if (from === to) return this.get(to, { content: false });
    if ((await this.store.stat(from)) === null) throw notFound(`File or directory does not exist: ${from}`);
    if ((await this.store.stat(to)) !== null) throw conflict(`File already exists: ${to}`);
    if (to.startsWith(`${from}/`)) throw badRequest(`Cannot move ${from} into itself`);
    if ((await this.store.stat(parentPath(to)))?.kind !== 'directory') {
      throw notFound(`No such parent directory: ${parentPath(to) || '/'}`);
    }
    await this.#mutating(async () => {
      await this.store.rename(from, to);
      await this.checkpoints.renameAll(from, to);
    });
    return this.get(to, { content: false });
  }

  /** Deletes a file, or a directory that is empty apart from leftover checkpoints (no trash here). */
  async delete(rawPath: string): Promise<void> {
    const path = normalizeApiPath(rawPath);
    if (path === '') throw badRequest('Cannot delete the root directory');
    if (this.isHidden(path)) throw badRequest(`Cannot delete file or directory '${path}'`);
    const stat = await this.store.stat(path);
    if (stat === null) throw notFound(`File or directory does not exist: ${path}`);
    if (stat.kind === 'directory') {
      const entries = await this.store.list(path);
      if (entries.some((entry) => entry.name !== CHECKPOINT_DIR)) throw badRequest(`Directory ${path} not empty`);
    }
    await this.#mutating(async () => {
      await this.store.remove(path);
      await this.checkpoints.deleteAll(path);
    });
  }

  /** `POST …/trust`: signs the notebook as it is now, so its outputs are trusted when read. */
  async trust(rawPath: string): Promise<void> {
    const path = normalizeApiPath(rawPath);
    const stat = await this.#visibleStat(path);
    if (stat.kind !== 'file') throw badRequest(`${path} is a directory, not a notebook`, 'bad type');
    const bytes = await this.store.read(path);
    readNotebook(bytes, path); // only notebooks can be trusted
    await this.#notary.sign(bytes);
    this.#trusted(); // any notebook with these bytes is trusted now
  }

  /**
   * Trust is per stored bytes: one HMAC over the file, never a re-serialization of the notebook
   * (that would double the cost of opening a 20 MB notebook). Everything this server saves is
   * already in nbformat's layout; a notebook rewritten by another tool must be trusted again.
   */
  async #isTrusted(bytes: Uint8Array): Promise<boolean> {
    try {
      return await this.#notary.isSigned(bytes);
    } catch {
      return false; // an unreadable signature store costs trust, not the notebook
    }
  }

  /** Trust is a convenience: failing to record it (unwritable data dir) must not fail the save. */
  async #signQuietly(bytes: Uint8Array): Promise<void> {
    await this.#notary.sign(bytes).catch(() => undefined);
    this.#trusted(); // any notebook with these bytes is trusted now
  }

  #trusted(): void {
    this.#trustGeneration++;
    this.#served.clear();
  }

  // --- checkpoints --------------------------------------------------------------------------

  async createCheckpoint(rawPath: string): Promise<CheckpointModel> {
    const path = await this.#checkpointable(rawPath);
    return this.#locks.run(path, () => this.checkpoints.create(path));
  }

  async listCheckpoints(rawPath: string): Promise<CheckpointModel[]> {
    return this.checkpoints.list(await this.#checkpointable(rawPath));
  }

  async restoreCheckpoint(rawPath: string, id: string): Promise<void> {
    const path = await this.#checkpointable(rawPath);
    await this.#mutating(() => this.#locks.run(path, () => this.checkpoints.restore(path, id)));
  }

  async deleteCheckpoint(rawPath: string, id: string): Promise<void> {
    await this.checkpoints.delete(await this.#checkpointable(rawPath), id);
  }

  async #checkpointable(rawPath: string): Promise<string> {
    const path = normalizeApiPath(rawPath);
    const stat = await this.#visibleStat(path);
    if (stat.kind !== 'file') throw badRequest(`${path} is a directory, checkpoints are kept for files`, 'bad type');
    return path;
  }

  /**
   * Runs a change to the store; afterwards no request joins a listing that started before it, so
   * a client always sees its own writes (see #sortedChildren).
   */
  async #mutating<T>(change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } finally {
      this.#listings.clear();
      this.#servedListings.clear();
    }
  }

  // --- models -------------------------------------------------------------------------------

  async #visibleStat(path: string): Promise<StoreStat> {
    const stat = this.isHidden(path) ? null : await this.store.stat(path);
    if (stat === null) throw notFound(`file or directory does not exist: '${path}'`);
    return stat;
  }

  async #requireDirectory(dir: string): Promise<void> {
    const stat = await this.store.stat(dir);
    if (stat?.kind === 'file') throw badRequest('Cannot POST to files, use PUT instead.');
    if (stat === null) throw notFound(`No such directory: ${dir}`);
  }

  async #occupied(path: string): Promise<boolean> {
    return (await this.store.stat(path)) !== null;
  }

  #baseModel(path: string, stat: StoreStat, type: ContentType): ContentsModel {
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

  async #directoryModel(
    path: string,
    stat: StoreStat,
    wantContent: boolean,
    page?: GetOptions['page'],
  ): Promise<ContentsModel> {
    const model = this.#baseModel(path, stat, 'directory');
    if (!wantContent) return model;
    // each caller gets its own copies of the shared models
    const sorted = (await this.#sharedChildren(path)).map((child) => ({ ...child }));
    model.content = page ? sorted.slice(page.offset, page.offset + page.limit) : sorted;
    if (page) model.total = sorted.length;
    model.format = 'json';
    return model;
  }

  /**
   * The sorted child models of a directory, shared: callers must not change them. Concurrent
   * requests for the same directory share one listing (50 clients refreshing a folder cost one
   * readdir and one round of stats, not 50). Any change made through this manager ends the sharing.
   */
  async #sharedChildren(path: string): Promise<ContentsModel[]> {
    let pending = this.#listings.get(path);
    if (!pending) {
      const started = this.#listChildren(path);
      pending = started.finally(() => {
        if (this.#listings.get(path) === pending) this.#listings.delete(path);
      });
      this.#listings.set(path, pending);
    }
    return pending;
  }

  async #listChildren(path: string): Promise<ContentsModel[]> {
    return (await this.#visibleChildren(path)).map(({ name, type, stat }) => {
      const child = this.#baseModel(joinPath(path, name), stat, type);
      if (type === 'file') child.mimetype = guessMimeType(name);
      return child;
    });
  }

  /**
   * The same children as #listChildren, written straight to JSON: for 10,000 entries no model
   * objects to allocate and stringify. Each entry is exactly `JSON.stringify` of its model (tested).
   */
  async #listingJson(path: string): Promise<Uint8Array> {
    const parts: string[] = [];
    for (const { name, type, stat } of await this.#visibleChildren(path)) {
      const mimetype = type === 'file' ? guessMimeType(name) : null;
      parts.push(
        `{"name":${JSON.stringify(name)},"path":${JSON.stringify(joinPath(path, name))},"type":"${type}",` +
          `"writable":${stat.writable},"created":"${isoTimestamp(stat.createdMs)}",` +
          `"last_modified":"${isoTimestamp(stat.mtimeMs)}",` +
          `"size":${type === 'directory' ? 'null' : JSON.stringify(stat.size)},` +
          `"mimetype":${mimetype === null ? 'null' : JSON.stringify(mimetype)},` +
          '"content":null,"format":null,"hash":null,"hash_algorithm":null}',
      );
    }
    return Buffer.from(`[${parts.join(',')}]`);
  }

  /** Listed children: hidden ones left out; directories, then notebooks, then files, by name. */
  async #visibleChildren(path: string): Promise<{ name: string; type: ContentType; stat: StoreStat }[]> {
    const children: { name: string; type: ContentType; stat: StoreStat; key: string }[] = [];
    for (const { name, stat } of await this.store.list(path)) {
      if (!this.allowHidden && name.startsWith('.')) continue;
      if (this.#hidden(name)) continue;
      const type: ContentType = stat.kind === 'directory' ? 'directory' : name.endsWith('.ipynb') ? 'notebook' : 'file';
      children.push({ name, type, stat, key: name.toLowerCase() });
    }
    // Case-insensitive within each kind (IPython 3 order).
    children.sort((a, b) => DIR_ORDER[a.type] - DIR_ORDER[b.type] || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return children;
  }

  async #notebookModel(path: string, stat: StoreStat, wantContent: boolean, wantHash: boolean): Promise<ContentsModel> {
    const model = this.#baseModel(path, stat, 'notebook');
    if (!wantContent && !wantHash) return model;
    const bytes = await this.store.read(path);
    model.size = bytes.byteLength;
    if (wantContent) {
      const parsed = readNotebook(bytes, path);
      model.content = markCells(parsed.notebook, await this.#isTrusted(bytes));
      model.format = 'json';
      if (parsed.validationMessage !== null) model.message = parsed.validationMessage;
    }
    if (wantHash) setHash(model, bytes);
    return model;
  }

  async #fileModel(
    path: string,
    stat: StoreStat,
    wantContent: boolean,
    format: GetOptions['format'],
    wantHash: boolean,
  ): Promise<ContentsModel> {
    const model = this.#baseModel(path, stat, 'file');
    model.mimetype = guessMimeType(model.name);
    if (!wantContent && !wantHash) return model;
    const bytes = await this.store.read(path);
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

  // --- directory copy -----------------------------------------------------------------------

  async #checkCopySize(from: string): Promise<void> {
    let total = 0;
    const walk = async (dir: string, depth: number): Promise<void> => {
      // Symlinked directories can form cycles; no real project is this deep.
      if (depth > MAX_COPY_DEPTH) throw badRequest(`Can't copy "${from}": the directory tree is too deep`);
      const entries = await this.store.list(dir);
      for (const entry of entries) {
        if (entry.stat.kind === 'file') total += entry.stat.size;
        if (total > this.#maxCopyBytes) return;
      }
      await Promise.all(
        entries.filter((e) => e.stat.kind === 'directory').map((e) => walk(joinPath(dir, e.name), depth + 1)),
      );
    };
    await walk(from, 0);
    if (total > this.#maxCopyBytes) {
      const limitMb = Math.round(this.#maxCopyBytes / (1024 * 1024));
      throw badRequest(`Can't copy folders larger than ${limitMb}MB, "${from}" is larger`);
    }
  }

  async #copyTree(from: string, to: string): Promise<void> {
    await this.store.mkdir(to);
    for (const entry of await this.store.list(from)) {
      const source = joinPath(from, entry.name);
      const target = joinPath(to, entry.name);
      if (entry.stat.kind === 'directory') await this.#copyTree(source, target);
      else await this.store.write(target, await this.store.read(source));
    }
  }
}

/** The model's JSON (its `content` null) as UTF-8 with `content` replaced by the given JSON bytes. */
function spliceContent(model: ContentsModel, content: Uint8Array): Uint8Array<ArrayBuffer> {
  const shell = JSON.stringify(model);
  // Strings escape every `"`, so this key can only be the model's own `content` field.
  const at = shell.indexOf(CONTENT_PLACEHOLDER);
  const head = Buffer.from(`${shell.slice(0, at)}"content":`);
  const tail = Buffer.from(shell.slice(at + CONTENT_PLACEHOLDER.length));
  return Buffer.concat([head, content, tail]);
}

/** jupyter_server's `ContentsManager.new()` defaults for a PUT that creates a file. */
function withNewFileDefaults(path: string, input: SaveInput): SaveInput {
  const type = input.type ?? (path.endsWith('.ipynb') ? 'notebook' : 'file');
  if (input.content !== undefined || type === 'directory') return { ...input, type };
  if (type === 'notebook') return { ...input, type, content: newNotebook(), format: 'json' };
  return { ...input, type: 'file', content: '', format: 'text' };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * `sha256` for a save: a big input is hashed a slice at a time with the event loop turning in
 * between, so the file write it runs alongside moves on from write(2) to fsync(2) to rename(2)
 * while the hash is computed (~12 ms for 20 MB), instead of after it.
 */
async function sha256Async(bytes: Uint8Array): Promise<string> {
  if (bytes.byteLength < HASH_SLICE) return sha256(bytes);
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.byteLength; at += HASH_SLICE) {
    await setImmediate(); // first of all, let the write get under way
    hash.update(bytes.subarray(at, at + HASH_SLICE));
  }
  return hash.digest('hex');
}

function setHash(model: ContentsModel, bytes: Uint8Array): void {
  model.hash = sha256(bytes);
  model.hash_algorithm = HASH_ALGORITHM;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeFileContent(
  path: string,
  bytes: Uint8Array,
  format: GetOptions['format'],
): { content: string; format: ContentFormat } {
  if (format === 'base64') return { content: encodeBase64Lines(bytes), format: 'base64' };
  try {
    return { content: utf8.decode(bytes), format: 'text' };
  } catch {
    if (format === 'text') throw badRequest(`${path} is not UTF-8 encoded`, 'bad format');
    return { content: encodeBase64Lines(bytes), format: 'base64' };
  }
}

function encodeFileContent(path: string, content: unknown, format: string | null | undefined): Uint8Array {
  if (format !== 'text' && format !== 'base64') {
    throw badRequest("Must specify format of file contents as 'text' or 'base64'", 'bad format');
  }
  if (typeof content !== 'string') {
    throw badRequest(`Encoding error saving ${path}: content must be a string for format '${format}'`, 'bad format');
  }
  if (format === 'text') {
    // A lone surrogate (`"\ud800"` in the JSON) would be written as U+FFFD: refuse, write nothing.
    if (!isWellFormedText(content)) {
      throw badRequest(
        `Encoding error saving ${path}: the text holds a lone surrogate, not valid Unicode`,
        'bad format',
      );
    }
    return new TextEncoder().encode(content);
  }
  const bytes = decodeBase64Strict(content);
  if (bytes === null) throw badRequest(`Encoding error saving ${path}: invalid base64`, 'bad format');
  return bytes;
}
