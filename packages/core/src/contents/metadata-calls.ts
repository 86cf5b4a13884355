import {
  type Dir,
  type Dirent,
  lstatSync,
  opendirSync,
  readdirSync,
  realpathSync,
  type Stats,
  statfsSync,
  statSync,
} from 'node:fs';
import * as fs from 'node:fs/promises';

/** statfs(2) magic numbers of file systems whose metadata calls may go over a network. */
const REMOTE_FILE_SYSTEMS = new Set([
  0x6969, // nfs
  0x517b, // smbfs
  0xff534d42, // cifs
  0xfe534d42, // smb2
  0x65735546, // fuse (sshfs, s3fs, gcsfuse, ...)
  0x01021997, // 9p
  0x00c36400, // ceph
  0x0bd00bd0, // lustre
  0x47504653, // gpfs
  0x5346414f, // afs
  0x6b414653, // kafs
]);

/**
 * Safety nets for remote mounts below a local root: far above anything a local disk takes, and
 * above the scheduling stalls a busy machine causes (which must not push us onto the slow path).
 */
const SLOW_CALL_MS = 1000;
const SLOW_BATCH_MS = 2000;
const ASYNC_PERIOD_MS = 30_000;
const STAT_BATCH = 256;
/** Directory entries read per opendir call. */
const DIR_BUFFER = 1024;
/**
 * A directory changed less than this long ago has no version: a change in the same tick of a
 * coarse file-system clock (or second, on some file systems) would leave its mtime as it was.
 */
const SETTLED_MS = 2000;

/** A directory's entry names by kind, in directory order. */
export interface DirectoryNames {
  files: string[];
  directories: string[];
  symlinks: string[];
}

function addByKind(out: DirectoryNames, d: Dirent): void {
  if (d.isFile()) out.files.push(d.name);
  else if (d.isDirectory()) out.directories.push(d.name);
  else if (d.isSymbolicLink()) out.symlinks.push(d.name);
}

function namesSync(dir: Dir): DirectoryNames {
  const out: DirectoryNames = { files: [], directories: [], symlinks: [] };
  try {
    for (let d = dir.readSync(); d !== null; d = dir.readSync()) addByKind(out, d);
  } finally {
    dir.closeSync();
  }
  return out;
}

async function namesAsync(dir: Dir): Promise<DirectoryNames> {
  const out: DirectoryNames = { files: [], directories: [], symlinks: [] };
  try {
    for (let d = await dir.read(); d !== null; d = await dir.read()) addByKind(out, d);
  } finally {
    await dir.close();
  }
  return out;
}

/**
 * File-system *metadata* calls (stat, lstat, realpath, readdir) for the FileSystemStore.
 *
 * On a local disk these are answered from the kernel's caches in microseconds, while a round trip
 * through libuv's 4-thread pool costs 20-300 µs under load (and 100,000 pending promises cost
 * seconds of GC): a listing request makes several, and 10,000 entries make 10,000. So on a local
 * file system they run synchronously. On a network or FUSE file system (detected with statfs) a
 * synchronous call could stall the server, so they stay asynchronous; as a safety net for remote
 * mounts inside a local root, a call slower than 1 s (or a batch of stats slower than 2 s)
 * switches to asynchronous calls for the next 30 s. File *contents* are always read and written
 * asynchronously elsewhere.
 */
export class MetadataCalls {
  readonly #root: string;
  #remote: Promise<boolean> | undefined;
  #asyncUntil = 0;

  constructor(root: string) {
    this.#root = root;
  }

  stat(path: string): Promise<Stats> {
    return this.#call(
      () => statSync(path),
      () => fs.stat(path),
    );
  }

  lstat(path: string): Promise<Stats> {
    return this.#call(
      () => lstatSync(path),
      () => fs.lstat(path),
    );
  }

  realpath(path: string): Promise<string> {
    return this.#call(
      () => realpathSync.native(path),
      () => fs.realpath(path),
    );
  }

  readdir(path: string): Promise<Dirent[]> {
    return this.#call(
      () => readdirSync(path, { withFileTypes: true }),
      () => fs.readdir(path, { withFileTypes: true }),
    );
  }

  /**
   * A directory's entries by kind, names only (sockets, fifos and devices left out): read in
   * batches through opendir, so 100,000 entries leave 100,000 names behind and no Dirent objects
   * (those would outlive the young generation and stay in the old one until a full GC).
   */
  readdirKinds(path: string): Promise<DirectoryNames> {
    return this.#call(
      () => namesSync(opendirSync(path, { bufferSize: DIR_BUFFER })),
      async () => namesAsync(await fs.opendir(path, { bufferSize: DIR_BUFFER })),
    );
  }

  /**
   * Stats many paths without one awaited round trip each (see statEach); unreadable entries come
   * back `null`. `map` turns each stat into what the caller keeps at once: the stat is lent for the
   * call only, and 100,000 Stats objects never live together (they would all survive into the old
   * generation and cost a full GC).
   */
  async statMany<T>(paths: readonly string[], map: (stats: Stats) => T | null): Promise<(T | null)[]> {
    const out: (T | null)[] = new Array(paths.length).fill(null);
    await this.statEach('', paths, 0, paths.length, (i, stats) => {
      out[i] = map(stats);
    });
    return out;
  }

  /**
   * `dev:ino:mtime:ctime` (nanoseconds) of a directory on a local file system whose mtime and
   * ctime are both settled (see SETTLED_MS): adding, removing or renaming an entry sets both to
   * the present, so the token changes. `null` on a network or FUSE file system (whose cached
   * attributes may lag behind another client's changes), for a recent change, or on any error.
   */
  async directoryVersion(dir: string): Promise<string | null> {
    if (await this.#isRemote()) return null;
    try {
      if (!this.onLocalFileSystem(dir)) return null;
      const s = statSync(dir, { bigint: true });
      const settled = BigInt(Date.now() - SETTLED_MS) * 1_000_000n;
      if (!s.isDirectory() || s.mtimeNs > settled || s.ctimeNs > settled) return null;
      return `${s.dev}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch {
      return null;
    }
  }

  /** Whether `path` is on a local file system: a network or FUSE mount's other clients change it unseen. */
  onLocalFileSystem(path: string): boolean {
    try {
      return !REMOTE_FILE_SYSTEMS.has(statfsSync(path).type);
    } catch {
      return false;
    }
  }

  /**
   * `visit(i, stats)` for each of `names[start..end)` under `prefix` that can be stat'ed, in
   * order, with nothing kept beyond a batch (no array of results, no paths, `stats` lent for the
   * call): a listing turns each into bytes at once. On a local disk, synchronous batches of 256
   * with a yield to the event loop between them (about 3x faster than 10,000 promises); on a slow
   * file system, 256 in parallel through the thread pool.
   */
  async statEach(
    prefix: string,
    names: readonly string[],
    start: number,
    end: number,
    visit: (index: number, stats: Stats) => void,
  ): Promise<void> {
    let i = start;
    const batch = new Array<Stats | undefined>(STAT_BATCH); // reused for every batch
    const remote = await this.#isRemote();
    while (i < end && !remote && !this.#isSlow()) {
      const started = performance.now();
      const stop = Math.min(i + STAT_BATCH, end);
      // all the batch's stats first, then the caller's work on them: the system calls run back
      // to back (about 10% faster here than taking turns with the writing)
      const from = i;
      for (; i < stop; i++) {
        try {
          batch[i - from] = statSync(prefix + (names[i] as string), { throwIfNoEntry: false });
        } catch {
          batch[i - from] = undefined; // permission denied, symlink loop, vanished meanwhile
        }
      }
      for (let k = from; k < stop; k++) {
        const stats = batch[k - from];
        batch[k - from] = undefined;
        if (stats) visit(k, stats);
      }
      if (performance.now() - started > SLOW_BATCH_MS) this.#markSlow();
      else if (i < end) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    for (; i < end; i += STAT_BATCH) {
      const from = i;
      const part = names.slice(from, Math.min(from + STAT_BATCH, end));
      const stats = await Promise.all(part.map((name) => fs.stat(prefix + name).catch(() => null)));
      stats.forEach((s, k) => {
        if (s) visit(from + k, s);
      });
    }
  }

  /** Metadata calls run synchronously here: a local file system, and no slow call lately. */
  async isLocal(): Promise<boolean> {
    return !(await this.#isRemote()) && !this.#isSlow();
  }

  async #call<T>(sync: () => T, async: () => Promise<T>): Promise<T> {
    if ((await this.#isRemote()) || this.#isSlow()) return async();
    const started = performance.now();
    try {
      return sync();
    } finally {
      if (performance.now() - started > SLOW_CALL_MS) this.#markSlow();
    }
  }

  #isRemote(): Promise<boolean> {
    this.#remote ??= fs.statfs(this.#root).then(
      (info) => REMOTE_FILE_SYSTEMS.has(info.type),
      () => false, // no root yet: callers report that; local behaviour until it exists
    );
    return this.#remote;
  }

  #isSlow(): boolean {
    return performance.now() < this.#asyncUntil;
  }

  #markSlow(): void {
    this.#asyncUntil = performance.now() + ASYNC_PERIOD_MS;
  }
}
