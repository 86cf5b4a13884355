import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';

/** Where the notary keeps the signatures of trusted notebooks. */
export interface SignatureStore {
  has(digest: string): Promise<boolean>;
  add(digest: string): Promise<void>;
}

/** Jupyter culls its signature database at this size, oldest first; so do we. */
const DEFAULT_LIMIT = 65_535;

export class MemorySignatureStore implements SignatureStore {
  readonly #digests = new Set<string>();
  readonly #limit: number;

  constructor(options: { limit?: number } = {}) {
    this.#limit = options.limit ?? DEFAULT_LIMIT;
  }

  async has(digest: string): Promise<boolean> {
    return this.#digests.has(digest);
  }

  async add(digest: string): Promise<void> {
    this.#digests.delete(digest); // re-adding refreshes its age
    this.#digests.add(digest);
    for (const oldest of this.#digests) {
      if (this.#digests.size <= this.#limit) break;
      this.#digests.delete(oldest);
    }
  }

  values(): string[] {
    return [...this.#digests];
  }
}

/**
 * Signatures in a JSON file (a list, oldest first), loaded once and rewritten atomically on each
 * new signature; writes are serialized so concurrent saves never lose one another's entries.
 */
export class FileSignatureStore implements SignatureStore {
  readonly path: string;
  readonly #limit: number;
  #memory: Promise<MemorySignatureStore> | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(path: string, options: { limit?: number } = {}) {
    this.path = path;
    this.#limit = options.limit ?? DEFAULT_LIMIT;
  }

  async has(digest: string): Promise<boolean> {
    return (await this.#load()).has(digest);
  }

  async add(digest: string): Promise<void> {
    const memory = await this.#load();
    if (await memory.has(digest)) return;
    await memory.add(digest);
    const write = this.#writing.then(() => writeAtomically(this.path, `${JSON.stringify(memory.values())}\n`));
    this.#writing = write.catch(() => undefined);
    await write;
  }

  #load(): Promise<MemorySignatureStore> {
    this.#memory ??= (async () => {
      const memory = new MemorySignatureStore({ limit: this.#limit });
      const text = await fs.readFile(this.path, 'utf8').catch(() => '[]');
      let list: unknown;
      try {
        list = JSON.parse(text);
      } catch {
        list = []; // a damaged database only costs trust, never availability
      }
      if (Array.isArray(list)) for (const d of list) if (typeof d === 'string') await memory.add(d);
      return memory;
    })();
    return this.#memory;
  }
}

/** The notary secret in a file (created with mode 0600 on first use), so trust survives restarts. */
export async function loadOrCreateSecret(path: string): Promise<Uint8Array> {
  const existing = await fs.readFile(path).catch(() => null);
  if (existing && existing.length >= 32) return existing;
  const secret = randomBytes(32);
  await fs.mkdir(nodePath.dirname(path), { recursive: true, mode: 0o700 });
  await writeAtomically(path, secret, 0o600);
  return secret;
}

async function writeAtomically(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  await fs.mkdir(nodePath.dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomic(path, data, { mode });
}
