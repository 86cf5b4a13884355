import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { notFound } from '../errors.js';
import { kernelSpecDirs } from './paths.js';
import type { KernelSpecListing, KernelSpecSource } from './source.js';
import {
  type BuiltinKernelSpec,
  type KernelSpecEntry,
  normalizeKernelSpec,
  resourceKey,
  VALID_KERNEL_NAME,
} from './spec.js';
import { DiskStamps } from './stamps.js';

// where gateway/kernelspecs.ts imports it from
export type { KernelSpecListing } from './source.js';

export interface KernelSpecManagerOptions {
  /** The `kernels` directories to search, in priority order. Default: Jupyter's search path. */
  dirs?: string[];
  /** Environment used to compute the default search path. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Extra env prefix (like Python's sys.prefix) searched for `share/jupyter/kernels`. */
  envPrefix?: string;
  /** Specs registered in code. A spec on disk with the same name takes precedence. */
  builtin?: BuiltinKernelSpec[];
  /** The default kernel name. Default: `python3` when present, else the first built-in, else the first found. */
  defaultName?: string;
  /** When non-empty, only these names are listed or started. */
  allowed?: string[];
  /** Receives warnings about broken or oddly named specs. */
  warn?: (message: string) => void;
  /** The clock compared with file times (injectable for tests). Default `Date.now`. */
  now?: () => number;
}

/** One reading of the disk: the specs found (first directory wins) and what they were read from. */
interface Snapshot {
  specs: Map<string, KernelSpecEntry>;
  stamps: DiskStamps;
  readStartedMs: number;
}

/**
 * Finds kernelspecs on disk and in code. Kernelspecs installed while the server runs appear
 * without a restart, even in a data directory that did not exist at start: a listing is reused
 * only while a `stat` of every directory and kernel.json it was read from (and of the nearest
 * existing ancestor of a missing search directory) shows no change, which costs a fraction of
 * reading every spec again.
 */
export class KernelSpecManager implements KernelSpecSource {
  readonly dirs: readonly string[];
  readonly #options: KernelSpecManagerOptions;
  readonly #warned = new Set<string>();
  readonly #now: () => number;
  #snapshot: Snapshot | undefined;
  #reads = 0;

  constructor(options: KernelSpecManagerOptions = {}) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.dirs =
      options.dirs ??
      kernelSpecDirs({
        ...(options.env ? { env: options.env } : {}),
        ...(options.envPrefix ? { envPrefix: options.envPrefix } : {}),
      });
  }

  /** How many times the specs were read from disk (a listing served from a valid snapshot is not). */
  get diskReads(): number {
    return this.#reads;
  }

  async list(): Promise<KernelSpecListing> {
    const allowed = this.#options.allowed?.map((n) => n.toLowerCase()) ?? [];
    const kernelspecs: Record<string, KernelSpecEntry> = {};
    for (const [name, entry] of await this.#specs()) {
      if (allowed.length === 0 || allowed.includes(name)) kernelspecs[name] = entry;
    }
    return { default: this.#defaultName(kernelspecs), kernelspecs };
  }

  /** One spec by name (case-insensitive). Throws not-found `Kernel spec <name> not found`. */
  async get(name: string): Promise<KernelSpecEntry> {
    const { kernelspecs } = await this.list();
    const key = name.toLowerCase();
    // own names only: `constructor` or `__proto__` are not specs
    const entry = Object.hasOwn(kernelspecs, key) ? kernelspecs[key] : undefined;
    if (!entry) throw notFound(`Kernel spec ${name} not found`);
    return entry;
  }

  async defaultName(): Promise<string> {
    return (await this.list()).default;
  }

  /**
   * The absolute path of a resource file of a spec, for serving `/kernelspecs/<name>/<file>`.
   * Any file directly inside the spec directory may be served (upstream serves the whole
   * directory); paths with separators or dot-dot never leave it.
   */
  async resourcePath(name: string, file: string): Promise<string> {
    const entry = await this.get(name);
    if (
      entry.resourceDir === null ||
      file === '' ||
      file.includes('/') ||
      file.includes('\\') ||
      file === '..' ||
      file === '.' ||
      file.includes('\0')
    ) {
      throw notFound(`Kernel spec resource ${name}/${file} not found`);
    }
    const full = path.join(entry.resourceDir, file);
    try {
      if ((await stat(full)).isFile()) return full;
    } catch {
      // fall through to not-found
    }
    throw notFound(`Kernel spec resource ${name}/${file} not found`);
  }

  async resource(name: string, file: string): Promise<Uint8Array> {
    return readFile(await this.resourcePath(name, file));
  }

  /** The specs as on disk now: the last snapshot while its stamps hold, else a fresh reading. */
  async #specs(): Promise<Map<string, KernelSpecEntry>> {
    const last = this.#snapshot;
    if (last?.stamps.settledBefore(last.readStartedMs) && last.stamps.unchanged()) return last.specs;
    const fresh = await this.#read();
    // Concurrent readings may finish out of order: keep the one that started last.
    if (!this.#snapshot || fresh.readStartedMs >= this.#snapshot.readStartedMs) this.#snapshot = fresh;
    return fresh.specs;
  }

  async #read(): Promise<Snapshot> {
    this.#reads++;
    const readStartedMs = this.#now();
    const stamps = new DiskStamps();
    const specs = new Map<string, KernelSpecEntry>();
    for (const dir of this.dirs) {
      if (!stamps.addSearchDir(dir)) continue; // a missing search directory is normal
      for (const entry of await this.#scanDir(dir, stamps)) if (!specs.has(entry.name)) specs.set(entry.name, entry);
    }
    for (const builtin of this.#options.builtin ?? []) {
      const name = builtin.name.toLowerCase();
      if (!specs.has(name)) specs.set(name, await this.#fromBuiltin(builtin));
    }
    return { specs, stamps, readStartedMs };
  }

  #defaultName(kernelspecs: Record<string, KernelSpecEntry>): string {
    const configured = this.#options.defaultName?.toLowerCase();
    if (configured) return configured;
    if (kernelspecs.python3) return 'python3';
    const firstBuiltin = this.#options.builtin?.find((b) => kernelspecs[b.name.toLowerCase()]);
    if (firstBuiltin) return firstBuiltin.name.toLowerCase();
    return Object.keys(kernelspecs).sort()[0] ?? 'python3';
  }

  async #scanDir(dir: string, stamps: DiskStamps): Promise<KernelSpecEntry[]> {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      return [];
    }
    const entries: KernelSpecEntry[] = [];
    for (const dirName of names.sort()) {
      const specDir = path.join(dir, dirName);
      const kernelJson = path.join(specDir, 'kernel.json');
      // Stamped even when not (yet) a spec: its kernel.json may be written later.
      stamps.add(specDir);
      if (!stamps.add(kernelJson)) continue;
      let text: string;
      try {
        text = await readFile(kernelJson, 'utf8');
      } catch {
        continue; // not a kernelspec directory
      }
      const name = dirName.toLowerCase();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        this.#warnOnce(`Skipping kernelspec ${specDir}: kernel.json is not valid JSON`);
        continue;
      }
      const normalized = normalizeKernelSpec(parsed);
      if ('error' in normalized) {
        this.#warnOnce(`Skipping kernelspec ${specDir}: ${normalized.error}`);
        continue;
      }
      if (!VALID_KERNEL_NAME.test(name))
        this.#warnOnce(`Kernelspec name ${JSON.stringify(dirName)} is not a valid kernel name`);
      entries.push({ name, spec: normalized.spec, resourceDir: specDir, resources: await scanResources(specDir) });
    }
    return entries;
  }

  async #fromBuiltin(builtin: BuiltinKernelSpec): Promise<KernelSpecEntry> {
    const resourceDir = builtin.resourceDir ?? null;
    return {
      name: builtin.name.toLowerCase(),
      spec: {
        argv: builtin.spec.argv,
        env: builtin.spec.env ?? {},
        display_name: builtin.spec.display_name,
        language: builtin.spec.language,
        interrupt_mode: builtin.spec.interrupt_mode ?? 'signal',
        metadata: builtin.spec.metadata ?? {},
      },
      resourceDir,
      resources: resourceDir ? await scanResources(resourceDir) : {},
    };
  }

  #warnOnce(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#options.warn?.(message);
  }
}

async function scanResources(dir: string): Promise<Record<string, string>> {
  const resources: Record<string, string> = {};
  let files: string[];
  try {
    files = await readdir(dir);
  } catch {
    return resources;
  }
  for (const file of files.sort()) {
    const key = resourceKey(file);
    if (key !== undefined) resources[key] = file;
  }
  return resources;
}
