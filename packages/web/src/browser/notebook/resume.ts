import { isObject } from '@nbserve/core/is-object';

/**
 * What a notebook page leaves in localStorage so that the next page on the same kernel can pick
 * up its running cells: its WebSocket session id (the server keeps replaying what arrives for
 * that id, see docs/kernels.md "Replay buffer") and the execute requests it was still waiting on.
 *
 * One key per server and kernel; its value is a short list of entries, one per page (client
 * session). A page keeps its entry up to date while requests are in flight, marks it `released`
 * when it is closed (pagehide), and removes it when nothing is in flight. A new page takes (reads
 * and removes) one entry whose page is gone, so two open pages never share a session.
 */

/** The part of `Storage` this module uses (localStorage in the page, a Map in tests). */
export type ResumeStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

/** One execute request still waiting for its outputs and reply when the page went away. */
export interface InFlight {
  msgId: string;
  cellId: string;
  /** Position of the cell when it ran, to put a cell that was never saved back near its place. */
  index: number;
  /** The cell's source, kept only for cells that may not be in the saved file (bounded). */
  source?: string;
  /** The execution count from `execute_input`, if it had arrived. */
  count: number | null;
  /** The notebook was saved after the request was sent: the file holds its outputs so far. */
  saved: boolean;
}

export interface ResumeEntry {
  /** The WebSocket `session_id` of the page. */
  session: string;
  /** When the entry was last written (ms since the epoch). */
  savedAt: number;
  /** The page was closed (pagehide); no page owns the session any more. */
  released: boolean;
  /**
   * The closing page sent a last save over the file with this hash (see Saver.writeOnUnload).
   * If the file's hash is different now, the file holds what the page had when it closed.
   */
  closeSaveOver?: string;
  requests: InFlight[];
}

export const KEY_PREFIX = 'nbserve.resume:';
/**
 * Entries older than this are dropped. The server forgets a session long before (300 s by
 * default), but a cell still running after that still sends its iopub to every client, so an
 * older entry can still put the rest of a long cell's output where it belongs.
 */
export const MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** Pages (entries) kept per kernel; the oldest go first. */
export const MAX_ENTRIES_PER_KERNEL = 4;
/** Kernels (keys) kept per origin; the least recently written go first. */
export const MAX_KEYS = 32;
/** Requests kept per entry (a "run all" on a big notebook). */
export const MAX_REQUESTS = 500;
/** Bytes of cell source kept per entry, for cells that were never saved. */
export const MAX_SOURCE_CHARS = 32 * 1024;

/** The localStorage key of a kernel on a server (`serverBase`: origin + base URL). */
export function resumeKey(serverBase: string, kernelId: string): string {
  return `${KEY_PREFIX}${serverBase}|${kernelId}`;
}

/** Name of the Web Lock a live page holds for its session (released by the browser when it goes). */
export function lockName(session: string): string {
  return `nbserve-client-session:${session}`;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;

function parseRequest(r: unknown): InFlight | undefined {
  if (!isObject(r)) return undefined;
  if (!isString(r.msgId) || !isString(r.cellId)) return undefined;
  const request: InFlight = {
    msgId: r.msgId,
    cellId: r.cellId,
    index: typeof r.index === 'number' && Number.isInteger(r.index) && r.index >= 0 ? r.index : 0,
    count: typeof r.count === 'number' && Number.isInteger(r.count) ? r.count : null,
    saved: r.saved === true,
  };
  if (typeof r.source === 'string' && r.source.length <= MAX_SOURCE_CHARS) request.source = r.source;
  return request;
}

function parseEntry(e: unknown): ResumeEntry | undefined {
  if (!isObject(e)) return undefined;
  if (!isString(e.session) || typeof e.savedAt !== 'number' || !Array.isArray(e.requests)) return undefined;
  const requests = e.requests
    .slice(0, MAX_REQUESTS)
    .map(parseRequest)
    .filter((r): r is InFlight => r !== undefined);
  const entry: ResumeEntry = { session: e.session, savedAt: e.savedAt, released: e.released === true, requests };
  if (isString(e.closeSaveOver)) entry.closeSaveOver = e.closeSaveOver;
  return entry;
}

/** The entries stored under `key`; anything malformed is ignored (the value came from storage). */
export function readEntries(storage: ResumeStorage, key: string): ResumeEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(storage.getItem(key) ?? 'null');
  } catch {
    return [];
  }
  const list = (value as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(list)) return [];
  return list.map(parseEntry).filter((e): e is ResumeEntry => e !== undefined);
}

function writeEntries(storage: ResumeStorage, key: string, entries: ResumeEntry[]): void {
  if (entries.length === 0) {
    storage.removeItem(key);
    return;
  }
  try {
    storage.setItem(key, JSON.stringify({ v: 1, entries }));
  } catch {
    // Quota exceeded or storage disabled: resuming is a convenience, never an error.
  }
}

/**
 * Stores (or replaces) the entry of `entry.session` under `key`, or removes it when it has no
 * requests. Drops expired entries and keeps at most MAX_ENTRIES_PER_KERNEL, newest first.
 */
export function putEntry(storage: ResumeStorage, key: string, entry: ResumeEntry): void {
  const others = readEntries(storage, key).filter(
    (e) => e.session !== entry.session && entry.savedAt - e.savedAt <= MAX_AGE_MS,
  );
  const requests = boundRequests(entry.requests);
  const mine = requests.length > 0 ? [{ ...entry, requests }] : [];
  const entries = [...mine, ...others].sort((a, b) => b.savedAt - a.savedAt).slice(0, MAX_ENTRIES_PER_KERNEL);
  writeEntries(storage, key, entries);
}

function boundRequests(requests: InFlight[]): InFlight[] {
  let chars = 0;
  return requests.slice(0, MAX_REQUESTS).map((r) => {
    if (r.source === undefined) return r;
    chars += r.source.length;
    if (chars <= MAX_SOURCE_CHARS) return r;
    const { source: _dropped, ...rest } = r;
    return rest;
  });
}

/** Removes the entry of `session` under `key`. */
export function dropEntry(storage: ResumeStorage, key: string, session: string): void {
  const entries = readEntries(storage, key);
  const kept = entries.filter((e) => e.session !== session);
  if (kept.length !== entries.length) writeEntries(storage, key, kept);
}

/**
 * Takes (returns and removes) the newest entry under `key` that no live page owns: one released
 * by its page, or (when the browser can tell) whose page no longer holds its session's lock.
 * Expired entries are removed on the way.
 */
export function takeEntry(
  storage: ResumeStorage,
  key: string,
  now: number,
  isOwned: (session: string) => boolean,
): ResumeEntry | undefined {
  const fresh = readEntries(storage, key).filter((e) => now - e.savedAt <= MAX_AGE_MS);
  const taken = fresh.filter((e) => e.released || !isOwned(e.session)).sort((a, b) => b.savedAt - a.savedAt)[0];
  writeEntries(
    storage,
    key,
    fresh.filter((e) => e !== taken),
  );
  return taken;
}

/**
 * Removes expired entries under every key of ours, and keeps at most MAX_KEYS keys (those written
 * last). Kernels that are gone leave keys behind; this is what bounds them.
 */
export function sweep(storage: ResumeStorage, now: number): void {
  const keys: string[] = [];
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (key?.startsWith(KEY_PREFIX)) keys.push(key);
  }
  const newest: { key: string; at: number }[] = [];
  for (const key of keys) {
    const entries = readEntries(storage, key);
    const fresh = entries.filter((e) => now - e.savedAt <= MAX_AGE_MS);
    if (fresh.length !== entries.length || fresh.length === 0) writeEntries(storage, key, fresh);
    if (fresh.length > 0) newest.push({ key, at: Math.max(...fresh.map((e) => e.savedAt)) });
  }
  newest.sort((a, b) => b.at - a.at);
  for (const { key } of newest.slice(MAX_KEYS)) storage.removeItem(key);
}

/**
 * The page's own entry, kept in step with its execute requests. Writes are batched into one per
 * task (a "run all" writes once), and written at once when the page is hidden.
 */
export class ResumeTracker {
  private key: string | undefined;
  private session = '';
  private readonly requests = new Map<string, InFlight>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private released = false;
  private closeSaveOver: string | undefined;

  constructor(
    private readonly storage: ResumeStorage | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts recording under `key` for `session` (after the kernel is known, or it changed). */
  bind(key: string, session: string): void {
    if (this.key && (this.key !== key || this.session !== session) && this.storage)
      dropEntry(this.storage, this.key, this.session);
    this.key = key;
    this.session = session;
    this.schedule();
  }

  get size(): number {
    return this.requests.size;
  }

  started(request: InFlight): void {
    this.requests.set(request.msgId, request);
    this.schedule();
  }

  counted(msgId: string, count: number | null): void {
    const r = this.requests.get(msgId);
    if (!r || r.count === count) return;
    r.count = count;
    this.schedule();
  }

  finished(msgId: string): void {
    if (this.requests.delete(msgId)) this.schedule();
  }

  clear(): void {
    if (this.requests.size === 0) return;
    this.requests.clear();
    this.schedule();
  }

  /** The requests in flight now (taken just before a save's content is). */
  inFlight(): string[] {
    return [...this.requests.keys()];
  }

  /** A save succeeded: the file holds the outputs so far of `msgIds` (from `inFlight()`). */
  saved(msgIds: string[]): void {
    for (const id of msgIds) {
      const r = this.requests.get(id);
      if (r) r.saved = true;
    }
    this.schedule();
  }

  /**
   * The page is going away (pagehide): the next page may take the session. `closeSaveOver`: the
   * hash of the file a last save on closing was sent over, if one was.
   */
  release(closeSaveOver?: string): void {
    this.released = true;
    this.closeSaveOver = closeSaveOver;
    this.flush();
  }

  /**
   * The page came back from the back-forward cache. False if another page took the session
   * meanwhile (then this page must use a new one).
   */
  reclaim(): boolean {
    this.released = false;
    this.closeSaveOver = undefined;
    if (!this.storage || !this.key || this.requests.size === 0) return true;
    const mine = readEntries(this.storage, this.key).some((e) => e.session === this.session);
    if (mine) this.flush();
    return mine;
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.storage || !this.key) return;
    const entry: ResumeEntry = {
      session: this.session,
      savedAt: this.now(),
      released: this.released,
      requests: [...this.requests.values()],
    };
    if (this.closeSaveOver) entry.closeSaveOver = this.closeSaveOver;
    putEntry(this.storage, this.key, entry);
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => this.flush(), 0);
  }
}
