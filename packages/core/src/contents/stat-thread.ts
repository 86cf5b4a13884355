import type { Stats } from 'node:fs';
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';

/** What a listing reads of a stat: the fields `FileSystemStore` turns into a `StoreStat`. */
export type StatFields = Pick<
  Stats,
  'isFile' | 'isDirectory' | 'mode' | 'size' | 'mtimeMs' | 'ctimeMs' | 'birthtimeMs' | 'uid' | 'gid'
>;

/** Numbers per path in a reply, in this order; mode 0 marks a path that could not be stat'ed. */
const FIELDS = 7;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
/** An unused thread is ended after this long: it holds about 12 MB of RSS. */
const IDLE_MS = 60_000;

/**
 * The thread's code, as text: it runs in a bundle (the CLI's esbuild output) and from source
 * alike, with no file of its own to find. It stats each name under a prefix, synchronously, and
 * sends the numbers back in one transferred array.
 */
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { statSync } = require('node:fs');
parentPort.on('message', ({ id, prefix, joined }) => {
  const started = performance.now();
  const names = joined.split('\\0');
  const out = new Float64Array(names.length * ${FIELDS});
  for (let i = 0; i < names.length; i++) {
    let s;
    try { s = statSync(prefix + names[i], { throwIfNoEntry: false }); } catch {}
    if (!s) continue;
    const o = i * ${FIELDS};
    out[o] = s.mode; out[o + 1] = s.size; out[o + 2] = s.mtimeMs; out[o + 3] = s.ctimeMs;
    out[o + 4] = s.birthtimeMs; out[o + 5] = s.uid; out[o + 6] = s.gid;
  }
  parentPort.postMessage({ id, out, ms: performance.now() - started }, [out.buffer]);
});
`;

/** Stats a thread sent back: `at(k)` views the k-th path's (one view object, valid until the next call). */
export class PackedStats {
  readonly #values: Float64Array;
  readonly #view = new PackedStat();
  /** How long the thread took over them. */
  readonly ms: number;

  constructor(values: Float64Array, ms: number) {
    this.#values = values;
    this.ms = ms;
  }

  get length(): number {
    return this.#values.length / FIELDS;
  }

  at(k: number): StatFields | null {
    if (this.#values[k * FIELDS] === 0) return null;
    this.#view.values = this.#values;
    this.#view.base = k * FIELDS;
    return this.#view;
  }
}

class PackedStat implements StatFields {
  values: Float64Array = new Float64Array(0);
  base = 0;
  get mode(): number {
    return this.values[this.base] as number;
  }
  get size(): number {
    return this.values[this.base + 1] as number;
  }
  get mtimeMs(): number {
    return this.values[this.base + 2] as number;
  }
  get ctimeMs(): number {
    return this.values[this.base + 3] as number;
  }
  get birthtimeMs(): number {
    return this.values[this.base + 4] as number;
  }
  get uid(): number {
    return this.values[this.base + 5] as number;
  }
  get gid(): number {
    return this.values[this.base + 6] as number;
  }
  isFile(): boolean {
    return (this.mode & S_IFMT) === S_IFREG;
  }
  isDirectory(): boolean {
    return (this.mode & S_IFMT) === S_IFDIR;
  }
}

interface Reply {
  id: number;
  out: Float64Array;
  ms: number;
}

/**
 * A second thread for stat(2). On a local disk a stat is a system call of about 4 µs on these
 * machines, and the event loop's thread makes them one after another: 10,000 entries are 40 ms
 * of them. Given half of a long run of paths, this thread stats it meanwhile (two threads on 2
 * vCPUs slow each stat by about 30 %, so the stats take about 60 % as long).
 *
 * Started on first use and not waited for: until it is running `stat` answers `null` and the
 * caller stats everything itself, as it does if the thread fails. It never keeps the process
 * alive, and ends after a minute unused.
 */
export class StatThread {
  #worker: Worker | undefined;
  #online = false;
  #nextId = 0;
  readonly #pending = new Map<number, (reply: PackedStats | null) => void>();
  #idle: NodeJS.Timeout | undefined;

  /** The stats of `prefix + name` for each name, or `null` if the thread is not there to ask. */
  stat(prefix: string, names: readonly string[]): Promise<PackedStats | null> | null {
    const worker = this.#worker ?? this.#start();
    if (!this.#online || !worker) return null;
    const id = this.#nextId++;
    this.#idle?.refresh();
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      // one string: cloning 5,000 strings cost the sender more than joining them (no name holds NUL)
      worker.postMessage({ id, prefix, joined: names.join('\0') });
    });
  }

  /** Resolves once the thread runs (false if it cannot): for tests that need it at once. */
  ready(): Promise<boolean> {
    const worker = this.#worker ?? this.#start();
    if (!worker) return Promise.resolve(false);
    if (this.#online) return Promise.resolve(true);
    return new Promise((resolve) => {
      worker.once('online', () => resolve(true));
      worker.once('exit', () => resolve(false));
    });
  }

  /** Ends the thread now; the next `stat` starts another. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#stopped();
    await worker?.terminate();
  }

  #start(): Worker | undefined {
    let worker: Worker;
    try {
      // loaded here, not at the top: worker_threads is not on the way to a server's first answer
      const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
      worker = new Worker(THREAD_SOURCE, {
        eval: true,
        // it keeps names and numbers of one batch at a time
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 1 },
        // it prints nothing; whatever Node might print there is not the server's log
        stdout: true,
        stderr: true,
      });
    } catch {
      return undefined; // no threads here: the caller stats alone
    }
    worker.unref();
    worker.on('online', () => {
      if (this.#worker === worker) this.#online = true;
    });
    worker.on('message', ({ id, out, ms }: Reply) => {
      this.#pending.get(id)?.(new PackedStats(out, ms));
      this.#pending.delete(id);
    });
    worker.on('error', () => undefined); // followed by 'exit'
    worker.on('exit', () => {
      if (this.#worker === worker) this.#stopped();
    });
    this.#idle = setTimeout(() => {
      if (this.#worker === worker) void this.close();
    }, IDLE_MS).unref();
    this.#worker = worker;
    return worker;
  }

  /** Forgets the thread; whoever waits on it stats alone. */
  #stopped(): void {
    clearTimeout(this.#idle);
    this.#worker = undefined;
    this.#online = false;
    for (const resolve of this.#pending.values()) resolve(null);
    this.#pending.clear();
  }
}
