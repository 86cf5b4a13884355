import type { ListingJson } from '../listing-json.js';

/** How long a directory's serialized listing is reused. */
const REUSE_MS = 100;
const MAX_LISTINGS = 256;

/**
 * Serialized listings shared by the requests that poll them. Clients poll listings (JupyterLab
 * every few seconds, from every tab), so one listing serves every request for REUSE_MS as long as
 * the directory's mtime is unchanged (an entry was added, removed or renamed) and nothing was
 * written through the manager; only an in-place edit made outside the server shows up that much
 * later. Requests arriving while it is built share it too.
 */
export class ServedListings {
  readonly #listings = new Map<string, { dirMtimeMs: number; at: number; json: Promise<ListingJson> }>();

  /** The listing of `path` served within the last REUSE_MS under `dirMtimeMs`, else `build()`'s. */
  get(path: string, dirMtimeMs: number, build: () => Promise<ListingJson>): Promise<ListingJson> {
    const cached = this.#listings.get(path);
    const now = performance.now();
    if (cached && cached.dirMtimeMs === dirMtimeMs && now - cached.at < REUSE_MS) return cached.json;
    if (this.#listings.size >= MAX_LISTINGS) this.#listings.clear();
    const json = build();
    const entry = { dirMtimeMs, at: now, json };
    this.#listings.set(path, entry);
    // Dropped once it is built and its window has passed. A big one is streamed, and only its
    // sorted names are shared: every request stats the entries as it writes them.
    const drop = () => {
      if (this.#listings.get(path) === entry) this.#listings.delete(path);
    };
    json.then(() => setTimeout(drop, Math.max(0, entry.at + REUSE_MS - performance.now())).unref(), drop);
    return json;
  }

  clear(): void {
    this.#listings.clear();
  }
}
