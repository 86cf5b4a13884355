import type { Dirent, Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { Readable } from 'node:stream';
import {
  badRequest,
  conflict,
  forbidden,
  internalError,
  isNbserveError,
  type NbserveError,
  notFound,
  unavailable,
} from '../errors.js';
import { removeOrphanTempsOf, sweepOrphanTemps, tempPathFor } from '../util/temp-files.js';
import { FsChildrenWatch } from './children-watch.js';
import { watchFile } from './file-watch.js';
import { MetadataCalls } from './metadata-calls.js';
import { baseName, parentPath, splitPath } from './paths.js';
import type {
  ByteRange,
  ChildrenWatch,
  ContentsStore,
  FileWatch,
  StoreCapabilities,
  StoreEntry,
  StoreNames,
  StoreStat,
  WriteOptions,
} from './store.js';

/**
 * A ContentsStore over a directory of the local file system.
 *
 * Containment: every path is resolved with `realpath` and must land on the root or below
 * `<root>/` (so `/srv/data-secret` never passes for root `/srv/data`); a symlink pointing
 * outside the root behaves as if nothing were there. Saves are atomic: a temp file in the
 * same directory, fsync, rename over the target, fsync of the directory. A server killed during a
 * save leaves its temp file behind: the file's next save removes it, and `sweepOrphanTemps()`
 * (run at start) removes all of them; only nbserve's own temp names of dead writers are touched.
 */
export class FileSystemStore implements ContentsStore {
  /** Saves replace the file (new mtime and ctime), entries change their directory's mtime; writes keep nothing. */
  readonly capabilities: StoreCapabilities = { statTracksChanges: true, releasesWrittenData: true };
  readonly root: string;
  #rootReal: Promise<string> | undefined;
  readonly #meta: MetadataCalls;
  readonly #uid = process.getuid?.() ?? -1;
  readonly #gids = new Set(process.getgroups?.() ?? []);

  constructor(root: string) {
    this.root = nodePath.resolve(root);
    this.#meta = new MetadataCalls(this.root);
  }

  async stat(path: string): Promise<StoreStat | null> {
    const real = await this.#resolveExisting(path);
    if (real === null) return null;
    const stats = await this.#meta.stat(real).catch(() => null);
    return stats ? this.#toStat(stats) : null;
  }

  async list(path: string): Promise<StoreEntry[]> {
    const dir = await this.#requireExisting(path);
    const dirents = await this.#meta.readdir(dir).catch((e) => {
      throw mapFsError(e, path);
    });
    // Sockets, fifos and devices are never listed.
    const candidates = dirents.filter((d) => d.isFile() || d.isDirectory() || d.isSymbolicLink());
    // (plain concatenation: `dir` is a real path, and path.join would normalize 10,000 times)
    const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep;
    const stats = await this.#meta.statMany(
      candidates.map((d) => prefix + d.name),
      (raw) => this.#toStat(raw),
    );
    // Symlinks are listed only when they end inside the root (broken ones have no stats already).
    // (one promise per symlink, not per entry: 10,000 plain files make no promises at all)
    const links: number[] = [];
    candidates.forEach((dirent, i) => {
      if (dirent.isSymbolicLink() && stats[i]) links.push(i);
    });
    await Promise.all(
      links.map(async (i) => {
        const real = await this.#meta.realpath(prefix + (candidates[i] as Dirent).name).catch(() => null);
        if (real === null || !(await this.#contains(real))) stats[i] = null;
      }),
    );
    const entries: StoreEntry[] = [];
    candidates.forEach((dirent, i) => {
      const stat = stats[i];
      if (stat) entries.push({ name: dirent.name, stat });
    });
    return entries;
  }

  async listKinds(path: string): Promise<StoreNames> {
    const dir = await this.#requireExisting(path);
    const { files, directories, symlinks } = await this.#meta.readdirKinds(dir).catch((e) => {
      throw mapFsError(e, path);
    });
    const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep;
    for (const name of symlinks) {
      // only links are resolved here: where they end decides whether and as what they are listed
      const real = await this.#meta.realpath(prefix + name).catch(() => null);
      const stat = real !== null && (await this.#contains(real)) ? await this.#meta.stat(real).catch(() => null) : null;
      const kind = stat ? this.#toStat(stat)?.kind : undefined;
      if (kind === 'file') files.push(name);
      else if (kind === 'directory') directories.push(name);
    }
    return { files, directories, links: symlinks.length };
  }

  async directoryVersion(path: string): Promise<string | null> {
    const dir = await this.#resolveExisting(path).catch(() => null);
    return dir === null ? null : this.#meta.directoryVersion(dir);
  }

  async watchChildren(path: string, subdirectories: readonly string[]): Promise<ChildrenWatch | null> {
    const dir = await this.#resolveExisting(path).catch(() => null);
    if (dir === null || !(await this.#meta.isLocal())) return null;
    // a watch on a network file system sees only this machine's changes (a subdirectory may be a mount)
    const paths = [dir, ...subdirectories.map((name) => nodePath.join(dir, name))];
    if (!paths.every((p) => this.#meta.onLocalFileSystem(p))) return null;
    return FsChildrenWatch.open(paths);
  }

  async watchFile(path: string, onChange: () => void): Promise<FileWatch | null> {
    const real = await this.#resolveExisting(path).catch(() => null);
    if (real === null || !this.#meta.onLocalFileSystem(nodePath.dirname(real))) return null;
    return watchFile(real, onChange);
  }

  async statChildren(path: string, names: readonly string[]): Promise<(StoreStat | null)[]> {
    const dir = await this.#resolveExisting(path).catch(() => null);
    if (dir === null) return names.map(() => null);
    const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep;
    return this.#meta.statMany(
      names.map((name) => prefix + name),
      (raw) => this.#toStat(raw),
    );
  }

  async statChildrenEach(
    path: string,
    names: readonly string[],
    start: number,
    end: number,
    visit: (index: number, stat: StoreStat) => void,
  ): Promise<void> {
    const dir = await this.#resolveExisting(path).catch(() => null);
    if (dir === null) return;
    const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep;
    // one StoreStat for all: visit uses it before the next stat (see ContentsStore.statChildrenEach)
    const stat: StoreStat = { kind: 'file', size: 0, mtimeMs: 0, createdMs: 0, writable: false };
    await this.#meta.statEach(prefix, names, start, end, (i, raw) => {
      if (this.#toStat(raw, stat)) visit(i, stat);
    });
  }

  async read(path: string): Promise<Uint8Array> {
    const real = await this.#requireExisting(path);
    try {
      return await fs.readFile(real);
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  async readInto(path: string, take: (length: number) => Uint8Array): Promise<Uint8Array> {
    const real = await this.#requireExisting(path);
    try {
      const handle = await fs.open(real, 'r');
      try {
        // one byte more than the size, to notice a file that grew since the stat
        const buffer = take((await handle.stat()).size + 1);
        let filled = 0;
        for (let read = -1; read !== 0 && filled < buffer.byteLength; filled += read) {
          ({ bytesRead: read } = await handle.read(buffer, filled, buffer.byteLength - filled, null));
        }
        if (filled < buffer.byteLength) return buffer.subarray(0, filled);
      } finally {
        await handle.close();
      }
      return await fs.readFile(real);
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  async readStream(path: string, range?: ByteRange): Promise<{ stat: StoreStat; stream: ReadableStream<Uint8Array> }> {
    const real = await this.#requireExisting(path);
    const handle = await fs.open(real, 'r').catch((e) => {
      throw mapFsError(e, path);
    });
    try {
      const stat = this.#toStat(await handle.stat());
      if (stat?.kind !== 'file') throw badRequest(`${path} is not a file`, 'bad type');
      const nodeStream = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      return { stat, stream: Readable.toWeb(nodeStream) as unknown as ReadableStream<Uint8Array> };
    } catch (e) {
      await handle.close();
      throw e;
    }
  }

  async write(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
    const target = await this.#resolveForCreate(path);
    const existing = await this.#meta.stat(target).catch(() => null);
    if (existing?.isDirectory()) throw badRequest(`${path} is a directory`, 'bad type');
    const dir = nodePath.dirname(target);
    const temp = tempPathFor(target);
    let replaced: fs.FileHandle | null = null;
    try {
      const handle = await fs.open(temp, 'wx', existing ? existing.mode & 0o7777 : 0o666);
      try {
        await writeAll(handle, data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await options.beforeReplace?.();
      replaced = await holdReplaced(target, existing);
      await fs.rename(temp, target);
    } catch (e) {
      replaced?.close().catch(() => undefined);
      await fs.rm(temp, { force: true }).catch(() => undefined);
      throw mapFsError(e, path);
    }
    // A crash during an earlier save left temps of this file: this save clears them (once per process).
    await Promise.all([syncDirectory(dir), removeOrphanTempsOf(target).catch(() => 0)]);
    // frees the replaced file's blocks; nothing needs to wait for that
    replaced?.close().catch(() => undefined);
  }

  /** Removes the temp files crashed saves left anywhere under the root; returns how many. */
  async sweepOrphanTemps(): Promise<number> {
    return sweepOrphanTemps(await this.#rootRealPath(), { blockingReads: await this.#meta.isLocal() });
  }

  async append(path: string, data: Uint8Array): Promise<void> {
    const target = await this.#resolveForCreate(path);
    try {
      await fs.appendFile(target, data);
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  async mkdir(path: string): Promise<void> {
    const target = await this.#resolveForCreate(path);
    try {
      await fs.mkdir(target);
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const source = await this.#entryPath(from);
    const target = await this.#resolveForCreate(to);
    if (await this.#meta.lstat(target).catch(() => null)) throw conflict(`File already exists: ${to}`);
    try {
      await fs.rename(source, target);
    } catch (e) {
      throw mapFsError(e, from);
    }
  }

  async remove(path: string): Promise<void> {
    if (splitPath(path).length === 0) throw badRequest('Cannot delete the root directory');
    const entry = await this.#entryPath(path);
    try {
      const stats = await this.#meta.lstat(entry);
      if (stats.isDirectory()) await fs.rm(entry, { recursive: true });
      else await fs.unlink(entry);
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  // --- containment -------------------------------------------------------------------------

  #rootRealPath(): Promise<string> {
    this.#rootReal ??= fs.realpath(this.root).catch(() => {
      this.#rootReal = undefined;
      throw notFound('The contents root directory does not exist');
    });
    return this.#rootReal;
  }

  async #contains(real: string): Promise<boolean> {
    const root = await this.#rootRealPath();
    if (real === root) return true;
    const prefix = root.endsWith(nodePath.sep) ? root : root + nodePath.sep;
    return real.startsWith(prefix);
  }

  async #lexical(path: string): Promise<string> {
    return nodePath.join(await this.#rootRealPath(), ...validSegments(path));
  }

  /** The real path of an existing entry inside the root, or `null`. */
  async #resolveExisting(path: string): Promise<string | null> {
    const lexical = await this.#lexical(path);
    const real = await this.#meta.realpath(lexical).catch(() => null);
    if (real === null || !(await this.#contains(real))) return null;
    return real;
  }

  async #requireExisting(path: string): Promise<string> {
    const real = await this.#resolveExisting(path);
    if (real === null) throw notFound(`No such file or directory: ${path}`);
    return real;
  }

  /** Where a new entry named by `path` goes: its parent must be an existing directory inside the root. */
  async #resolveForCreate(path: string): Promise<string> {
    if (validSegments(path).length === 0) throw badRequest('The root directory cannot be replaced');
    const parent = parentPath(path);
    const parentReal = await this.#resolveExisting(parent);
    const parentStat = parentReal === null ? null : await this.#meta.stat(parentReal).catch(() => null);
    if (parentReal === null || !parentStat?.isDirectory()) {
      throw notFound(`No such parent directory: ${parent === '' ? '/' : parent}`);
    }
    const target = nodePath.join(parentReal, baseName(path));
    const link = await this.#meta.lstat(target).catch(() => null);
    if (link?.isSymbolicLink()) {
      // Writing through a link is fine only when it ends inside the root.
      const real = await this.#meta.realpath(target).catch(() => null);
      if (real === null || !(await this.#contains(real))) throw forbidden(`Permission denied: ${path}`);
      return real;
    }
    return target;
  }

  /** The entry itself (a symlink is not followed), for rename and delete. */
  async #entryPath(path: string): Promise<string> {
    if (validSegments(path).length === 0) throw badRequest('Cannot move or delete the root directory');
    const parentReal = await this.#resolveExisting(parentPath(path));
    if (parentReal === null) throw notFound(`No such file or directory: ${path}`);
    const entry = nodePath.join(parentReal, baseName(path));
    if (!(await this.#meta.lstat(entry).catch(() => null))) throw notFound(`No such file or directory: ${path}`);
    return entry;
  }

  /** `into`: filled in place of a new object (a listing's one lent StoreStat). */
  #toStat(stats: Stats, into?: StoreStat): StoreStat | null {
    const kind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : null;
    if (kind === null) return null;
    const stat = into ?? { kind, size: 0, mtimeMs: 0, createdMs: 0, writable: false };
    stat.kind = kind;
    stat.size = stats.size;
    stat.mtimeMs = stats.mtimeMs;
    stat.createdMs = stats.birthtimeMs > 0 ? stats.birthtimeMs : stats.ctimeMs;
    stat.writable = this.#writable(stats);
    return stat;
  }

  /** Owner/group/other write bit for this process: the answer of access(W_OK) without a syscall per entry. */
  #writable(stats: Stats): boolean {
    if (this.#uid === 0) return true;
    if (stats.uid === this.#uid) return (stats.mode & 0o200) !== 0;
    if (this.#gids.has(stats.gid)) return (stats.mode & 0o020) !== 0;
    return (stats.mode & 0o002) !== 0;
  }
}

/** Defence in depth: the manager normalizes paths, but a store may be used directly. */
function validSegments(path: string): string[] {
  const segments = splitPath(path);
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\0'))) {
    throw badRequest(`Invalid path: ${JSON.stringify(path)}`, 'bad path');
  }
  return segments;
}

/**
 * `handle.writeFile(data)` without its 512 KiB slices: one thread-pool job (one write(2)) for the
 * whole buffer in the usual case, instead of forty round trips through the event loop for 20 MB.
 */
async function writeAll(handle: fs.FileHandle, data: Uint8Array): Promise<void> {
  for (let offset = 0; offset < data.byteLength; ) {
    const { bytesWritten } = await handle.write(data, offset, data.byteLength - offset);
    offset += bytesWritten;
  }
}

/** Files at least this big are held open while they are replaced (see `holdReplaced`). */
const HOLD_REPLACED_BYTES = 1024 * 1024;

/**
 * The file a save is about to replace, opened, when it is big: rename(2) over a file frees its
 * blocks inside the rename (~5 ms for 20 MB on ext4), and so does a close racing the directory's
 * fsync. Held open until both are done, the old file's blocks are freed by a close nobody waits
 * for. The directory never holds anything extra, and after a crash the file system drops the
 * unlinked inode by itself.
 */
async function holdReplaced(target: string, existing: Stats | null): Promise<fs.FileHandle | null> {
  if (!existing?.isFile() || existing.size < HOLD_REPLACED_BYTES || process.platform === 'win32') return null;
  return fs.open(target, 'r').catch(() => null);
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable; some file systems refuse fsync on directories, which is fine.
  const handle = await fs.open(dir, 'r').catch(() => null);
  if (!handle) return;
  await handle.sync().catch(() => undefined);
  await handle.close();
}

/** OS errors become typed errors that name the API path, never the OS path. */
function mapFsError(error: unknown, path: string): NbserveError {
  if (isNbserveError(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return notFound(`No such file or directory: ${path}`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return forbidden(`Permission denied: ${path}`);
    case 'EEXIST':
      return conflict(`File already exists: ${path}`);
    case 'ENOTDIR':
      return badRequest(`Not a directory: ${path}`, 'bad type');
    case 'EISDIR':
      return badRequest(`${path} is a directory`, 'bad type');
    case 'ENOTEMPTY':
      return badRequest(`Directory ${path} not empty`);
    case 'EINVAL':
      return badRequest(`Invalid operation on ${path}`);
    case 'ENAMETOOLONG':
      return badRequest(`Name too long: ${path}`, 'bad path');
    case 'ENOSPC':
    case 'EDQUOT':
      return unavailable(`No space left to write ${path}`);
    default:
      return internalError(`Storage error on ${path}`, { cause: error });
  }
}
