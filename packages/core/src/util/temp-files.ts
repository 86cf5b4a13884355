import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { isProcessAlive, processStartTime } from '../kernels/process-group.js';

/**
 * Names of the temp files nbserve writes before renaming over a file (atomic saves):
 * `.~<name>.nbserve-<pid>-<start>-<random>.tmp` next to the target. The pid and the writer's
 * start time (Linux clock ticks since boot, base 36; `0` where unknown) tell a temp of a live
 * save from the debris of a crashed server, even when the pid was reused (a container's pid 1).
 * Only names of exactly this shape are ever deleted, and only when their writer is gone.
 */
const TEMP_NAME = /^\.~(.+)\.nbserve-(\d{1,10})-([0-9a-z]{1,16})-[0-9a-f]{8}\.tmp$/;
/** Longer names are replaced by a digest in the temp name, so temp names stay under NAME_MAX. */
const MAX_NAME_BYTES = 160;

function startTag(pid: number): string {
  const ticks = processStartTime(pid);
  return ticks === undefined || !/^\d+$/.test(ticks) ? '0' : Number(ticks).toString(36);
}

const OWN_START = startTag(process.pid);

/** The name a target goes by inside its temp names. */
function nameTag(name: string): string {
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  return `#${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;
}

/** A fresh temp path for an atomic write of `target`, in the same directory. */
export function tempPathFor(target: string): string {
  const dir = nodePath.dirname(target);
  const suffix = `nbserve-${process.pid}-${OWN_START}-${randomBytes(4).toString('hex')}`;
  return nodePath.join(dir, `.~${nameTag(nodePath.basename(target))}.${suffix}.tmp`);
}

interface TempName {
  tag: string;
  pid: number;
  start: string;
}

function parseTempName(name: string): TempName | undefined {
  const match = TEMP_NAME.exec(name);
  if (!match) return undefined;
  return { tag: match[1] as string, pid: Number(match[2]), start: match[3] as string };
}

/** A temp whose writer is gone: its pid is dead, or now belongs to a process started later. */
function isOrphan(temp: TempName): boolean {
  if (temp.pid === process.pid && temp.start === OWN_START) return false; // one of our saves
  if (!isProcessAlive(temp.pid)) return true;
  return temp.start !== '0' && startTag(temp.pid) !== temp.start;
}

async function removeIfOrphan(dir: string, name: string): Promise<boolean> {
  const temp = parseTempName(name);
  if (!temp || !isOrphan(temp)) return false;
  const file = nodePath.join(dir, name);
  const stats = await fs.lstat(file).catch(() => null);
  if (!stats?.isFile()) return false; // never a directory or a symlink
  return fs.unlink(file).then(
    () => true,
    () => false,
  );
}

/** Targets whose old temps this process already removed: a directory listing per file, once. */
const cleaned = new Set<string>();
const MAX_REMEMBERED = 10_000;

/**
 * Removes the temps a crashed writer left for `target` (the next save of a file clears its own
 * debris). Done once per file per process: later debris can only come from another server.
 */
export async function removeOrphanTempsOf(target: string): Promise<number> {
  if (cleaned.has(target)) return 0;
  if (cleaned.size >= MAX_REMEMBERED) cleaned.clear();
  cleaned.add(target);
  const dir = nodePath.dirname(target);
  const prefix = `.~${nameTag(nodePath.basename(target))}.nbserve-`;
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (name.startsWith(prefix) && (await removeIfOrphan(dir, name))) removed++;
  }
  return removed;
}

export interface SweepOptions {
  /** Walk subdirectories too (symlinks are not followed). Default true. */
  recursive?: boolean;
  /** Stop after looking at this many directory entries (a huge root is not walked forever). */
  maxEntries?: number;
  /**
   * Read directories with blocking calls, a batch at a time, yielding between batches: for local
   * file systems only (a blocking call on a network mount could stall the server). Default false.
   */
  blockingReads?: boolean;
}

/**
 * Removes every orphaned nbserve temp under `dir` (at start: the contents root, the data and
 * config directories). Returns how many were removed; unreadable directories are skipped.
 */
export async function sweepOrphanTemps(dir: string, options: SweepOptions = {}): Promise<number> {
  const recursive = options.recursive ?? true;
  const blocking = options.blockingReads ?? false;
  let budget = options.maxEntries ?? 200_000;
  let removed = 0;
  const pending = [dir];
  while (pending.length > 0 && budget > 0) {
    const current = pending.pop() as string;
    // Read in batches, never the whole directory at once: a root with 100,000 files would
    // otherwise cost the freshly started server 100,000 Dirents at once (tens of MB).
    const dir = await fs.opendir(current, { bufferSize: SWEEP_BATCH }).catch(() => null);
    if (!dir) continue;
    try {
      for (let seen = 1; budget > 0; seen++) {
        // a promise per entry costs more than the reading itself: blocking reads where allowed,
        // a slice at a time with a pause after each, so the sweep takes a tenth of the event loop
        // at most (yielding with setImmediate alone, a 100,000-entry sweep took turns with a
        // listing's batches and made it 2-3x slower)
        const entry = blocking ? dir.readSync() : await dir.read();
        if (entry === null) break;
        budget--;
        if (blocking && seen % SWEEP_SLICE === 0)
          await new Promise<void>((resolve) => setTimeout(resolve, SWEEP_PAUSE_MS).unref());
        if (entry.isDirectory()) {
          if (recursive) pending.push(nodePath.join(current, entry.name));
        } else if (entry.isFile() && entry.name.startsWith('.~') && (await removeIfOrphan(current, entry.name))) {
          removed++;
        }
      }
    } catch {
      // unreadable meanwhile: skipped
    } finally {
      await dir.close().catch(() => undefined);
    }
  }
  return removed;
}

/** Directory entries the start-up sweep reads per call. */
const SWEEP_BATCH = 1024;
/** Entries read between two pauses (about 0.5 ms of reading here), and the pause. */
const SWEEP_SLICE = 256;
const SWEEP_PAUSE_MS = 5;
