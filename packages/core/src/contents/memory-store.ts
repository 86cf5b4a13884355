import { badRequest, conflict, notFound } from '../errors.js';
import { baseName, parentPath, splitPath } from './paths.js';
import type { ByteRange, ContentsStore, StoreCapabilities, StoreEntry, StoreStat, WriteOptions } from './store.js';

interface FileNode {
  kind: 'file';
  data: Uint8Array;
  mtimeMs: number;
  createdMs: number;
}
interface DirNode {
  kind: 'directory';
  children: Map<string, Node>;
  mtimeMs: number;
  createdMs: number;
}
type Node = FileNode | DirNode;

/** Sub-millisecond wall clock, so consecutive saves get distinct `last_modified` values. */
const preciseNow = () => performance.timeOrigin + performance.now();

/** A ContentsStore held in memory: for embedding nbserve and for tests. Nothing can escape its root. */
export class MemoryStore implements ContentsStore {
  /** Every change takes a new timestamp from the clock; writes keep copies. */
  readonly capabilities: StoreCapabilities = { statTracksChanges: true, releasesWrittenData: true };
  readonly #root: DirNode;
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? preciseNow;
    const t = this.#now();
    this.#root = { kind: 'directory', children: new Map(), mtimeMs: t, createdMs: t };
  }

  async stat(path: string): Promise<StoreStat | null> {
    const node = this.#find(path);
    return node ? toStat(node) : null;
  }

  async list(path: string): Promise<StoreEntry[]> {
    const dir = this.#dir(path);
    return [...dir.children].map(([name, node]) => ({ name, stat: toStat(node) }));
  }

  async read(path: string): Promise<Uint8Array> {
    return this.#file(path).data.slice();
  }

  async readStream(path: string, range?: ByteRange): Promise<{ stat: StoreStat; stream: ReadableStream<Uint8Array> }> {
    const file = this.#file(path);
    const data = range ? file.data.slice(range.start, range.end + 1) : file.data.slice();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(data);
        controller.close();
      },
    });
    return { stat: toStat(file), stream };
  }

  async write(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<void> {
    await options.beforeReplace?.();
    const parent = this.#parentFor(path);
    const name = baseName(path);
    const existing = parent.children.get(name);
    if (existing?.kind === 'directory') throw badRequest(`${path} is a directory`, 'bad type');
    const t = this.#now();
    // a copy: `slice()` of a Buffer would share the caller's memory
    parent.children.set(name, {
      kind: 'file',
      data: new Uint8Array(data),
      mtimeMs: t,
      createdMs: existing?.createdMs ?? t,
    });
    if (!existing) parent.mtimeMs = t;
  }

  async append(path: string, data: Uint8Array): Promise<void> {
    const parent = this.#parentFor(path);
    const existing = parent.children.get(baseName(path));
    if (existing === undefined) return this.write(path, data);
    if (existing.kind === 'directory') throw badRequest(`${path} is a directory`, 'bad type');
    const joined = new Uint8Array(existing.data.byteLength + data.byteLength);
    joined.set(existing.data, 0);
    joined.set(data, existing.data.byteLength);
    existing.data = joined;
    existing.mtimeMs = this.#now();
  }

  async mkdir(path: string): Promise<void> {
    const parent = this.#parentFor(path);
    const name = baseName(path);
    if (parent.children.has(name)) throw conflict(`File already exists: ${path}`);
    const t = this.#now();
    parent.children.set(name, { kind: 'directory', children: new Map(), mtimeMs: t, createdMs: t });
    parent.mtimeMs = t;
  }

  async rename(from: string, to: string): Promise<void> {
    const node = this.#find(from);
    if (!node || splitPath(from).length === 0) throw notFound(`No such file or directory: ${from}`);
    if (to === from || to.startsWith(`${from}/`)) throw badRequest(`Cannot move ${from} into itself`);
    const target = this.#parentFor(to);
    if (target.children.has(baseName(to))) throw conflict(`File already exists: ${to}`);
    const source = this.#dir(parentPath(from));
    source.children.delete(baseName(from));
    target.children.set(baseName(to), node);
    const t = this.#now();
    source.mtimeMs = t;
    target.mtimeMs = t;
  }

  async remove(path: string): Promise<void> {
    if (splitPath(path).length === 0) throw badRequest('Cannot delete the root directory');
    const parent = this.#dir(parentPath(path));
    if (!parent.children.delete(baseName(path))) throw notFound(`No such file or directory: ${path}`);
    parent.mtimeMs = this.#now();
  }

  #find(path: string): Node | null {
    let node: Node = this.#root;
    for (const segment of splitPath(path)) {
      if (node.kind !== 'directory') return null;
      const child = node.children.get(segment);
      if (!child) return null;
      node = child;
    }
    return node;
  }

  #dir(path: string): DirNode {
    const node = this.#find(path);
    if (!node) throw notFound(`No such file or directory: ${path}`);
    if (node.kind !== 'directory') throw badRequest(`Not a directory: ${path}`, 'bad type');
    return node;
  }

  #file(path: string): FileNode {
    const node = this.#find(path);
    if (!node) throw notFound(`No such file or directory: ${path}`);
    if (node.kind !== 'file') throw badRequest(`${path} is a directory`, 'bad type');
    return node;
  }

  #parentFor(path: string): DirNode {
    if (splitPath(path).length === 0) throw badRequest('The root directory cannot be replaced');
    const parent = parentPath(path);
    const node = this.#find(parent);
    if (node?.kind !== 'directory') throw notFound(`No such parent directory: ${parent === '' ? '/' : parent}`);
    return node;
  }
}

function toStat(node: Node): StoreStat {
  return {
    kind: node.kind,
    size: node.kind === 'file' ? node.data.byteLength : 0,
    mtimeMs: node.mtimeMs,
    createdMs: node.createdMs,
    writable: true,
  };
}
