import type { ContentsCache } from './cache/contents-cache.js';
import type { ListingJson } from './listing-json.js';
import type { ContentsModel, GetOptions, SerializedModel } from './model.js';
import { baseModel, type ModelReader } from './model-reader.js';
import { compactJsonBytes } from './nbformat/compact-json.js';
import type { StoreStat } from './store.js';

const CONTENT_PLACEHOLDER = '"content":null';
/** Notebooks this big are not kept on their first open. */
const FIRST_OPEN_UNCACHED = 1024 * 1024;

/**
 * The fast path of `ContentsManager.getSerialized`: answers that are mostly bytes built before.
 * A notebook's content comes from its cached JSON text while the file is unchanged (see
 * ContentsCache), so reopening a big notebook never parses, re-serializes or re-encodes it; a
 * polled listing is serialized once for every client polling it. The models come from the
 * ModelReader, as `get`'s do, and the bytes are exactly those of `JSON.stringify(get())`.
 */
export class ServedBytes {
  readonly #reader: ModelReader;
  readonly #cache: ContentsCache;
  /** Bumped whenever something is signed: a verdict read before that must not be cached after. */
  #trustGeneration = 0;

  constructor(reader: ModelReader, cache: ContentsCache) {
    this.#reader = reader;
    this.#cache = cache;
  }

  /**
   * The model at a visible path and its JSON, for a full directory listing or a notebook's content;
   * `null` for everything else (files, pages, hashes, models without content): `get` answers those.
   */
  async serialize(path: string, stat: StoreStat, options: GetOptions): Promise<SerializedModel | null> {
    if (stat.kind === 'directory') {
      if ((options.type ?? 'directory') !== 'directory' || options.content === false || options.page) return null;
      const model = baseModel(path, stat, 'directory');
      model.format = 'json';
      const listing = await this.#listing(path, stat);
      return {
        model,
        json: typeof listing === 'function' ? streamContent(model, listing) : spliceContent(model, [listing]),
      };
    }
    const type = options.type ?? (path.endsWith('.ipynb') ? 'notebook' : 'file');
    if (type !== 'notebook' || options.content === false || options.hash) return null;
    const cached = this.#cache.notebooks.get(path, stat);
    if (cached) {
      const model = notebookModel(path, stat, cached);
      return { model, json: spliceContent(model, [cached.contentJson]) };
    }
    return await this.#freshNotebook(path, stat);
  }

  /** Something was signed: notebooks served before may be trusted now. */
  trustChanged(): void {
    this.#trustGeneration++;
    this.#cache.trustChanged();
  }

  /** A directory's content as JSON: the same child models `get` lists, shared while it is polled. */
  #listing(path: string, stat: StoreStat): Promise<ListingJson> {
    const build = () => this.#reader.childrenJson(path);
    const served = this.#cache.servedListings;
    return served ? served.get(path, stat.mtimeMs, build) : build();
  }

  /**
   * A notebook not served before (or changed since): its whole answer is written into one buffer
   * (see compactJsonBytes), whose content part is what the cache keeps. The first open of a big
   * notebook (1 MiB and up) keeps nothing: its answer goes into lent memory, given back once sent
   * and then used for the next one, because fresh memory costs a page fault per 4 KiB on first
   * touch (over 100 ms for 20 MB on a loaded VM, more than the rest of the open) and a kept copy
   * stays in the server's memory while the notebook is saved. Opened again unchanged, its answer
   * is built in memory of its own and kept.
   */
  async #freshNotebook(path: string, stat: StoreStat): Promise<SerializedModel> {
    const generation = this.#trustGeneration;
    const read = await this.#reader.servableContent(path);
    const size = read.size;
    const model = notebookModel(path, stat, { size, message: read.message });
    const shell = JSON.stringify(model);
    const at = shell.indexOf(CONTENT_PLACEHOLDER);
    const head = `${shell.slice(0, at)}"content":`;
    const tail = shell.slice(at + CONTENT_PLACEHOLDER.length);
    // Made-up cell ids differ on every read in Jupyter too; such a notebook is not pinned to one set.
    const unchanged = size === stat.size && generation === this.#trustGeneration;
    const cacheable = !read.generatedIds && unchanged && this.#cache.notebooks.enabled;
    const statKey = `${stat.mtimeMs}:${stat.createdMs}:${stat.size}`;
    const firstOpen = size >= FIRST_OPEN_UNCACHED && !this.#cache.openedOnce(path, statKey);
    // the memory such an answer is written into, lent until it is sent (see SerializedModel.release)
    const answers =
      cacheable && !firstOpen ? undefined : size >= FIRST_OPEN_UNCACHED ? this.#cache.lent.second : undefined;
    let json: Buffer;
    try {
      json = compactJsonBytes(read.content, head, tail, read.raw, answers);
    } finally {
      read.release();
    }
    const out = new Uint8Array(json.buffer as ArrayBuffer, json.byteOffset, json.byteLength);
    if (answers !== undefined) {
      if (cacheable) this.#cache.rememberOpened(path, statKey);
      return { model, json: out, release: () => answers.give(json) };
    }
    this.#cache.rememberOpened(path, null);
    if (cacheable) {
      const contentJson = json.subarray(Buffer.byteLength(head), json.byteLength - Buffer.byteLength(tail));
      this.#cache.notebooks.set(path, stat, { contentJson, size, message: read.message });
    }
    return { model, json: out };
  }
}

function notebookModel(path: string, stat: StoreStat, served: { size: number; message: string | null }): ContentsModel {
  const model = baseModel(path, stat, 'notebook');
  model.size = served.size;
  model.format = 'json';
  if (served.message !== null) model.message = served.message;
  return model;
}

/**
 * The model's JSON with a streamed listing as its `content`: read part by part, so each part is
 * stat'ed and written only when the response has room for it (the HTTP server reads on `drain`).
 */
function streamContent(model: ContentsModel, listing: () => AsyncGenerator<Uint8Array<ArrayBuffer>>) {
  const [head, tail] = shellAround(model);
  let parts: AsyncGenerator<Uint8Array<ArrayBuffer>> | undefined;
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      async pull(controller) {
        if (!parts) {
          parts = listing();
          controller.enqueue(Buffer.from(head) as Uint8Array<ArrayBuffer>);
          return;
        }
        const next = await parts.next();
        if (!next.done) controller.enqueue(next.value);
        else {
          controller.enqueue(Buffer.from(tail) as Uint8Array<ArrayBuffer>);
          controller.close();
        }
      },
      async cancel() {
        await parts?.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}

/** The model's JSON (its `content` null) before and after the `content` value. */
function shellAround(model: ContentsModel): [string, string] {
  const shell = JSON.stringify(model);
  // Strings escape every `"`, so this key can only be the model's own `content` field.
  const at = shell.indexOf(CONTENT_PLACEHOLDER);
  return [`${shell.slice(0, at)}"content":`, shell.slice(at + CONTENT_PLACEHOLDER.length)];
}

/**
 * The model's JSON (its `content` null) as UTF-8 with `content` replaced by the given JSON, in
 * pieces of text or bytes: written into one buffer of the exact size, so each piece is encoded
 * or copied once.
 */
function spliceContent(model: ContentsModel, content: readonly (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  const [head, tail] = shellAround(model);
  const pieces = [head, ...content, tail];
  let size = 0;
  for (const piece of pieces) size += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
  const out = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const piece of pieces) {
    if (typeof piece === 'string') offset += out.write(piece, offset);
    else {
      out.set(piece, offset);
      offset += piece.byteLength;
    }
  }
  return out;
}
