import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  dropEntry,
  type InFlight,
  KEY_PREFIX,
  MAX_AGE_MS,
  MAX_ENTRIES_PER_KERNEL,
  MAX_KEYS,
  MAX_REQUESTS,
  MAX_SOURCE_CHARS,
  putEntry,
  type ResumeEntry,
  type ResumeStorage,
  ResumeTracker,
  readEntries,
  resumeKey,
  sweep,
  takeEntry,
} from '../src/browser/notebook/resume.js';

/** localStorage's interface over a Map (the module only needs these five members). */
function memoryStorage(): ResumeStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, String(v)),
    removeItem: (k) => void map.delete(k),
    key: (i) => [...map.keys()][i] ?? null,
    get length() {
      return map.size;
    },
  };
}

const request = (msgId: string, extra: Partial<InFlight> = {}): InFlight => ({
  msgId,
  cellId: `cell-${msgId}`,
  index: 0,
  count: null,
  saved: false,
  ...extra,
});

const entry = (session: string, savedAt: number, released: boolean, requests = [request(`m-${session}`)]) =>
  ({ session, savedAt, released, requests }) satisfies ResumeEntry;

const KEY = resumeKey('http://127.0.0.1:8888/', 'k1');
const NOW = 1_700_000_000_000;
const notOwned = () => false;
const owned = () => true;

describe('resume store', () => {
  it('keys by server base URL and kernel id', () => {
    expect(resumeKey('http://a/', 'k')).toBe(`${KEY_PREFIX}http://a/|k`);
    expect(resumeKey('http://a/base/', 'k')).not.toBe(resumeKey('http://a/', 'k'));
  });

  it('takes a released entry once, removing it', () => {
    const s = memoryStorage();
    putEntry(s, KEY, entry('s1', NOW, true));
    const taken = takeEntry(s, KEY, NOW + 1000, owned);
    expect(taken?.session).toBe('s1');
    expect(taken?.requests.map((r) => r.msgId)).toEqual(['m-s1']);
    expect(takeEntry(s, KEY, NOW + 1000, owned)).toBeUndefined();
    expect(s.map.size).toBe(0);
  });

  it('never takes the entry of a live page (not released, its lock held)', () => {
    const s = memoryStorage();
    putEntry(s, KEY, entry('live', NOW, false));
    expect(takeEntry(s, KEY, NOW, owned)).toBeUndefined();
    expect(readEntries(s, KEY)).toHaveLength(1);
    // The page crashed: nobody holds its lock any more.
    expect(takeEntry(s, KEY, NOW, notOwned)?.session).toBe('live');
  });

  it('takes the newest adoptable entry and leaves the others for other pages', () => {
    const s = memoryStorage();
    putEntry(s, KEY, entry('old', NOW, true));
    putEntry(s, KEY, entry('new', NOW + 10, true));
    putEntry(s, KEY, entry('live', NOW + 20, false));
    expect(takeEntry(s, KEY, NOW + 30, owned)?.session).toBe('new');
    expect(takeEntry(s, KEY, NOW + 30, owned)?.session).toBe('old');
    expect(takeEntry(s, KEY, NOW + 30, owned)).toBeUndefined();
    expect(readEntries(s, KEY).map((e) => e.session)).toEqual(['live']);
  });

  it('expires entries older than MAX_AGE_MS', () => {
    const s = memoryStorage();
    putEntry(s, KEY, entry('stale', NOW, true));
    expect(takeEntry(s, KEY, NOW + MAX_AGE_MS + 1, owned)).toBeUndefined();
    expect(s.map.size).toBe(0);
  });

  it('an entry without requests removes the page entry', () => {
    const s = memoryStorage();
    putEntry(s, KEY, entry('s1', NOW, false));
    putEntry(s, KEY, entry('s1', NOW + 1, false, []));
    expect(s.map.size).toBe(0);
  });

  it('bounds entries per kernel, requests per entry and stored source', () => {
    const s = memoryStorage();
    for (let i = 0; i < MAX_ENTRIES_PER_KERNEL + 3; i++) putEntry(s, KEY, entry(`s${i}`, NOW + i, true));
    const kept = readEntries(s, KEY);
    expect(kept).toHaveLength(MAX_ENTRIES_PER_KERNEL);
    expect(kept[0]?.session).toBe(`s${MAX_ENTRIES_PER_KERNEL + 2}`);

    const many = Array.from({ length: MAX_REQUESTS + 10 }, (_, i) => request(`r${i}`, { source: 'x'.repeat(1000) }));
    putEntry(s, KEY, entry('big', NOW + 100, true, many));
    const big = readEntries(s, KEY).find((e) => e.session === 'big') as ResumeEntry;
    expect(big.requests).toHaveLength(MAX_REQUESTS);
    const sourceChars = big.requests.reduce((n, r) => n + (r.source?.length ?? 0), 0);
    expect(sourceChars).toBeLessThanOrEqual(MAX_SOURCE_CHARS);
    expect(big.requests[0]?.source).toBeDefined();
    expect(big.requests[MAX_REQUESTS - 1]?.source).toBeUndefined();
  });

  it('ignores malformed values', () => {
    const s = memoryStorage();
    s.setItem(KEY, '{not json');
    expect(readEntries(s, KEY)).toEqual([]);
    s.setItem(
      KEY,
      JSON.stringify({
        entries: [
          { session: 's', savedAt: 'yesterday', requests: [] },
          { session: 'ok', savedAt: NOW, released: true, requests: [{ msgId: 1 }, [], 'x', request('good')] },
          null,
          ['ok', NOW],
          'ok',
        ],
      }),
    );
    const [only, ...rest] = readEntries(s, KEY);
    expect(rest).toEqual([]);
    expect(only?.session).toBe('ok');
    expect(only?.requests.map((r) => r.msgId)).toEqual(['good']);
  });

  it('sweeps expired entries and bounds the number of kernels', () => {
    const s = memoryStorage();
    s.setItem('unrelated', 'kept');
    putEntry(s, resumeKey('http://a/', 'old'), entry('x', NOW - MAX_AGE_MS - 1, true));
    for (let i = 0; i < MAX_KEYS + 2; i++) putEntry(s, resumeKey('http://a/', `k${i}`), entry(`s${i}`, NOW + i, true));
    sweep(s, NOW + 100);
    expect(s.getItem('unrelated')).toBe('kept');
    expect(s.getItem(resumeKey('http://a/', 'old'))).toBeNull();
    expect(s.getItem(resumeKey('http://a/', 'k0'))).toBeNull();
    expect(s.getItem(resumeKey('http://a/', 'k1'))).toBeNull();
    expect(s.getItem(resumeKey('http://a/', `k${MAX_KEYS + 1}`))).not.toBeNull();
    expect([...s.map.keys()].filter((k) => k.startsWith(KEY_PREFIX))).toHaveLength(MAX_KEYS);
  });

  it('dropEntry removes one page only', () => {
    const s = memoryStorage();
    putEntry(s, KEY, entry('a', NOW, true));
    putEntry(s, KEY, entry('b', NOW, true));
    dropEntry(s, KEY, 'a');
    expect(readEntries(s, KEY).map((e) => e.session)).toEqual(['b']);
  });
});

describe('ResumeTracker', () => {
  it('keeps the page entry in step with its requests and releases it on pagehide', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const s = memoryStorage();
    let now = NOW;
    const t = new ResumeTracker(s, () => now);
    t.bind(KEY, 'page');
    t.started(request('m1', { cellId: 'c1' }));
    t.started(request('m2', { cellId: 'c2' }));
    vi.runOnlyPendingTimers(); // writes are batched into the next task
    expect(readEntries(s, KEY)).toEqual([
      {
        session: 'page',
        savedAt: NOW,
        released: false,
        requests: [request('m1', { cellId: 'c1' }), request('m2', { cellId: 'c2' })],
      },
    ]);
    expect(takeEntry(s, KEY, now, owned)).toBeUndefined(); // live: not taken

    t.counted('m1', 3);
    t.saved(t.inFlight());
    t.started(request('m3'));
    t.finished('m2');
    now += 500;
    t.release();
    const taken = takeEntry(s, KEY, now, owned);
    expect(taken?.released).toBe(true);
    expect(taken?.savedAt).toBe(NOW + 500);
    expect(taken?.requests).toEqual([request('m1', { cellId: 'c1', count: 3, saved: true }), request('m3')]);
  });

  it('removes its entry when nothing is in flight, and when rebound to another kernel', async () => {
    const s = memoryStorage();
    const t = new ResumeTracker(s, () => NOW);
    t.bind(KEY, 'page');
    t.started(request('m1'));
    t.flush();
    expect(readEntries(s, KEY)).toHaveLength(1);
    t.finished('m1');
    t.flush();
    expect(s.map.size).toBe(0);

    t.started(request('m2'));
    t.flush();
    const other = resumeKey('http://127.0.0.1:8888/', 'k2');
    t.bind(other, 'page');
    t.flush();
    expect(s.getItem(KEY)).toBeNull();
    expect(readEntries(s, other)).toHaveLength(1);
  });

  it('reclaim after the back-forward cache says whether another page took the session', () => {
    const s = memoryStorage();
    const t = new ResumeTracker(s, () => NOW);
    t.bind(KEY, 'page');
    t.started(request('m1'));
    t.release();
    expect(t.reclaim()).toBe(true);
    expect(readEntries(s, KEY)[0]?.released).toBe(false);
    t.release();
    takeEntry(s, KEY, NOW, owned);
    expect(t.reclaim()).toBe(false);
  });

  it('works without storage (disabled localStorage)', () => {
    const t = new ResumeTracker(undefined);
    t.bind(KEY, 'page');
    t.started(request('m1'));
    t.release();
    expect(t.reclaim()).toBe(true);
  });
});
