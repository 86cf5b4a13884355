import { badRequest, conflict, notFound } from '../errors.js';
import type { LentBuffers, SpareBuffer } from '../util/spare-buffer.js';
import { ContentsCache } from './cache/contents-cache.js';
import { checkpointContents } from './checkpoint-contents.js';
import { type CheckpointStore, hasCheckpoints } from './checkpoints.js';
import { checkCopySize, copyTree } from './copy-tree.js';
import { FileCheckpointStore } from './file-checkpoints.js';
import { encodeFileContent, sha256Async } from './file-content.js';
import { compileGlobs, DEFAULT_HIDE_GLOBS, isHiddenPath } from './hidden.js';
import { KeyedLock } from './keyed-lock.js';
import { guessMimeType } from './mimetypes.js';
import {
  type CheckpointModel,
  type ContentsModel,
  type ContentType,
  type GetOptions,
  HASH_ALGORITHM,
  type OpenedFile,
  type SaveInput,
  type SaveResult,
  type SerializedModel,
} from './model.js';
import { ModelReader } from './model-reader.js';
import { incrementName, stripCopySuffix, type UntitledBases, untitledName, withNewFileDefaults } from './naming.js';
import { newNotebook, readNotebook, serializeNotebook, toNotebookV4 } from './nbformat/notebook.js';
import { materialize } from './nbformat/parse-bytes.js';
import type { RawStrings } from './nbformat/sorted-json.js';
import { allCellsTrusted, NotebookNotary } from './notary.js';
import { baseName, isValidName, joinPath, normalizeApiPath, parentPath } from './paths.js';
import { checkSaveKinds } from './save-input.js';
import { checkPrecondition, type SavePrecondition } from './save-precondition.js';
import { ServedBytes } from './served-bytes.js';
import type { ByteRange, ContentsStore, StoreStat, WriteOptions } from './store.js';

export interface ContentsManagerOptions {
  store: ContentsStore;
  /** Default: Jupyter's `.ipynb_checkpoints` layout inside the same store, keeping `checkpointsKeep`. */
  checkpoints?: CheckpointStore;
  /** Checkpoints the default store keeps per file: at least 1 (jupyter_server's), default 5. */
  checkpointsKeep?: number;
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
  /** Memory big reads and saves are lent: a server's, shared with its request bodies. Default: its own. */
  lent?: LentBuffers;
}

const CHECKPOINT_DIR = '.ipynb_checkpoints';

/**
 * Jupyter contents semantics (jupyter_server's /api/contents) over a ContentsStore: models, formats, hashes, untitled
 * and copy naming, rename/delete rules, hidden files, notebooks validated as nbformat v4, checkpoints.
 */
export class ContentsManager {
  readonly store: ContentsStore;
  readonly checkpoints: CheckpointStore;
  readonly allowHidden: boolean;
  readonly #untitled: UntitledBases;
  readonly #maxCopyBytes: number;
  readonly #locks = new KeyedLock();
  readonly #notary: NotebookNotary;
  readonly #reader: ModelReader;
  /** What is served again instead of read afresh, and when it no longer holds (see ContentsCache). */
  readonly #cache: ContentsCache;
  readonly #served: ServedBytes;
  /** Notebooks are serialized into it, reused from save to save when store and checkpoints keep nothing. */
  readonly #saveBuffers: SpareBuffer | undefined;

  constructor(options: ContentsManagerOptions) {
    this.store = options.store;
    this.checkpoints = options.checkpoints ?? new FileCheckpointStore(options.store, { keep: options.checkpointsKeep });
    this.allowHidden = options.allowHidden ?? false;
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
    const hidden = compileGlobs(options.hideGlobs ?? DEFAULT_HIDE_GLOBS);
    const notebookCacheBytes = options.notebookCacheBytes ?? 64 * 1024 * 1024;
    this.#cache = new ContentsCache({ store: this.store, notebookCacheBytes, lent: options.lent });
    this.#reader = new ModelReader({
      store: this.store,
      listed: (name) => (this.allowHidden || !name.startsWith('.')) && !hidden(name),
      notary: this.#notary,
      cache: this.#cache,
    });
    this.#served = new ServedBytes(this.#reader, this.#cache);
    const capabilities = this.store.capabilities;
    const releases = capabilities?.releasesWrittenData && this.checkpoints.capabilities?.releasesWrittenData;
    this.#saveBuffers = releases ? this.#cache.lent.shared : undefined;
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
      return this.#reader.directory(path, stat, wantContent, options.page);
    }
    if (options.type === 'directory') throw badRequest(`${path} is not a directory`, 'bad type');
    const type = options.type ?? (path.endsWith('.ipynb') ? 'notebook' : 'file');
    if (type === 'notebook') return this.#reader.notebook(path, stat, wantContent, options.hash ?? false);
    return this.#reader.file(path, stat, wantContent, options.format, options.hash ?? false);
  }

  /**
   * `get` with the model already serialized, for answering over the wire: the bytes are those of
   * `JSON.stringify(await get(path, options))`, listings and notebooks mostly served from bytes
   * built before (see ServedBytes).
   */
  async getSerialized(rawPath: string, options: GetOptions = {}): Promise<SerializedModel> {
    const path = normalizeApiPath(rawPath);
    const served = await this.#served.serialize(path, await this.#visibleStat(path), options);
    if (served) return served;
    const model = await this.get(path, options);
    return { model, json: Buffer.from(JSON.stringify(model)) };
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

  /** With `raw`, `given.content` is from parseJsonBytes: a notebook's long strings are copied from its bytes. */
  async save(rawPath: string, given: SaveInput, precondition: SavePrecondition = {}, raw?: RawStrings) {
    const path = normalizeApiPath(rawPath);
    if (path === '') throw badRequest('Cannot save over the root directory');
    if (this.isHidden(path) || (given.path && this.isHidden(given.path))) {
      throw badRequest(`Cannot create file or directory '${path}'`);
    }
    checkSaveKinds(given);

    return this.#mutating(() =>
      this.#locks.run(path, async () => {
        const existing = await this.store.stat(path);
        // Where no file exists yet, Jupyter goes through `new()`: the type follows the extension and
        // a missing content is an empty notebook or text file (the spec's "new empty notebook").
        let input = existing?.kind === 'file' ? given : withNewFileDefaults(path, given);
        if (raw && input.type !== 'notebook' && input.content !== undefined) {
          input = { ...input, content: materialize(input.content, raw) };
        }
        if (input.type === undefined) throw badRequest('No file type provided');
        const type = input.type as ContentType;
        if (type !== 'directory' && input.content === undefined) throw badRequest('No file content provided');
        const recheck = await checkPrecondition(this.store, path, existing, precondition);
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
        // (a body parsed from its bytes is in the shared spare until the save is done)
        const buffers =
          type === 'notebook' && this.#saveBuffers ? (raw ? this.#cache.lent.second : this.#saveBuffers) : undefined;
        if (type === 'notebook') {
          const what = `Invalid notebook content for ${path}`;
          let parsed = toNotebookV4(input.content, what);
          // a message would show a marker where the string is: worded from the strings
          if (raw && parsed.validationMessage !== null) parsed = toNotebookV4(materialize(input.content, raw), what);
          bytes = serializeNotebook(parsed.notebook, buffers, raw);
          message = parsed.validationMessage;
          trusted = allCellsTrusted(parsed.notebook);
        } else {
          bytes = encodeFileContent(path, input.content, input.format);
        }
        let hash: string;
        try {
          hash = await this.#writeHashed(path, bytes, { beforeReplace: recheck });
          if (trusted) await this.#signQuietly(bytes);
          // One checkpoint always exists for a notebook once it has been saved, as in Jupyter.
          if (type === 'notebook' && !(await hasCheckpoints(this.checkpoints, path))) {
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
  async #writeHashed(path: string, bytes: Uint8Array, options: WriteOptions = {}): Promise<string> {
    // settle both before returning: the caller reuses the buffer once this returns
    const [written, hashed] = await Promise.allSettled([this.store.write(path, bytes, options), sha256Async(bytes)]);
    this.#cache.changed(path); // the served JSON of what was there is of no use any more
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

  /** POST to a directory: a new untitled notebook, file or folder, named as Jupyter names them. */
  async newUntitled(rawDir: string, options: { type?: string; ext?: string } = {}): Promise<ContentsModel> {
    const dir = normalizeApiPath(rawDir);
    if (this.isHidden(dir)) throw badRequest(`Cannot create file or directory '${dir}'`);
    await this.#requireDirectory(dir);
    const { type, name: first, insert } = untitledName(this.#untitled, options);
    return this.#mutating(() =>
      this.#locks.run(`dir:${dir}`, async () => {
        const name = await incrementName(first, insert, (n) => this.#occupied(joinPath(dir, n)));
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
          await checkCopySize(this.store, from, this.#maxCopyBytes);
          await copyTree(this.store, from, path);
        } else {
          const bytes = await this.store.read(from);
          await this.store.write(path, bytes);
          if (path.endsWith('.ipynb') && !(await hasCheckpoints(this.checkpoints, path))) {
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
    }, from);
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
    }, path);
  }

  /** `POST …/trust`: signs the notebook as it is now, so its outputs are trusted when read. */
  async trust(rawPath: string): Promise<void> {
    const path = normalizeApiPath(rawPath);
    const stat = await this.#visibleStat(path);
    if (stat.kind !== 'file') throw badRequest(`${path} is a directory, not a notebook`, 'bad type');
    const bytes = await this.store.read(path);
    readNotebook(bytes, path); // only notebooks can be trusted
    await this.#notary.sign(bytes);
    this.#served.trustChanged(); // any notebook with these bytes is trusted now
  }

  /** Trust is a convenience: failing to record it (unwritable data dir) must not fail the save. */
  async #signQuietly(bytes: Uint8Array): Promise<void> {
    await this.#notary.sign(bytes).catch(() => undefined);
    this.#served.trustChanged(); // any notebook with these bytes is trusted now
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
    const path = await this.#checkpointable(rawPath);
    await this.#locks.run(path, () => this.checkpoints.delete(path, id));
  }

  /** The file as it was at a checkpoint (an nbserve extension: pages show it before a restore). */
  async getCheckpoint(rawPath: string, id: string, options: Pick<GetOptions, 'format'> = {}): Promise<ContentsModel> {
    const path = await this.#checkpointable(rawPath);
    const bytes = await this.checkpoints.read(path, id);
    const file = await this.get(path, { content: false });
    return checkpointContents(file, id, await this.checkpoints.list(path), bytes, options.format);
  }

  async #checkpointable(rawPath: string): Promise<string> {
    const path = normalizeApiPath(rawPath);
    const stat = await this.#visibleStat(path);
    if (stat.kind !== 'file') throw badRequest(`${path} is a directory, checkpoints are kept for files`, 'bad type');
    return path;
  }

  /**
   * Runs a change to the store; afterwards no request joins a listing that started before it, so
   * a client always sees its own writes, and the served JSON of the notebook at `path` (renamed
   * or deleted) is not kept any longer.
   */
  async #mutating<T>(change: () => Promise<T>, path?: string): Promise<T> {
    try {
      return await change();
    } finally {
      this.#cache.changed(path);
    }
  }

  // --- paths --------------------------------------------------------------------------------

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
}
