import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Signatures kept at most; the least recently seen are dropped first (Jupyter keeps 65535). */
const MAX_SIGNATURES = 65_535;
const SECRET_FILE = 'notebook_secret';
const DB_FILE = 'nbsignatures.json';

interface SignatureDb {
  version: 1;
  /** signature hex -> ISO time last seen */
  signatures: Record<string, string>;
}

/** JSON with sorted keys, so the same notebook always signs the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The notebook without what trust itself adds: `metadata.signature` and per-cell `trusted` flags. */
function signable(notebook: unknown): unknown {
  if (!notebook || typeof notebook !== 'object') return notebook;
  const nb = { ...(notebook as Record<string, unknown>) };
  if (nb.metadata && typeof nb.metadata === 'object') {
    const { signature: _signature, ...metadata } = nb.metadata as Record<string, unknown>;
    nb.metadata = metadata;
  }
  if (Array.isArray(nb.cells)) {
    nb.cells = nb.cells.map((cell: unknown) => {
      if (!cell || typeof cell !== 'object') return cell;
      const c = { ...(cell as Record<string, unknown>) };
      if (c.metadata && typeof c.metadata === 'object') {
        const { trusted: _trusted, ...metadata } = c.metadata as Record<string, unknown>;
        c.metadata = metadata;
      }
      return c;
    });
  }
  return nb;
}

/**
 * Jupyter's notebook trust model: a notebook is trusted when an HMAC-SHA256 of its content,
 * keyed with a secret only this server knows (kept in the data dir, mode 0600), is in the
 * signature database. Signing happens when the user trusts a notebook, or saves one whose every
 * output they produced; any edit made elsewhere changes the digest and so drops the trust.
 */
export class Notary {
  private secret: Buffer | undefined;
  private db: SignatureDb | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly dataDir: string) {}

  async sign(notebook: unknown): Promise<string> {
    const signature = await this.compute(notebook);
    const db = await this.load();
    db.signatures[signature] = new Date().toISOString();
    this.cull(db);
    await this.persist(db);
    return signature;
  }

  async isTrusted(notebook: unknown): Promise<boolean> {
    const signature = await this.compute(notebook);
    const db = await this.load();
    return signature in db.signatures;
  }

  private async compute(notebook: unknown): Promise<string> {
    const secret = await this.loadSecret();
    const digest = createHash('sha256')
      .update(canonical(signable(notebook)))
      .digest();
    return createHmac('sha256', secret).update(digest).digest('hex');
  }

  private async loadSecret(): Promise<Buffer> {
    if (this.secret) return this.secret;
    const file = path.join(this.dataDir, SECRET_FILE);
    try {
      const text = (await readFile(file, 'utf8')).trim();
      if (/^[0-9a-f]{64,}$/.test(text)) {
        this.secret = Buffer.from(text, 'hex');
        return this.secret;
      }
    } catch {
      // first use: create it below
    }
    const fresh = randomBytes(32);
    await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
    await writeFile(file, fresh.toString('hex'), { mode: 0o600, flag: 'w' });
    this.secret = fresh;
    return fresh;
  }

  private async load(): Promise<SignatureDb> {
    if (this.db) return this.db;
    try {
      const parsed = JSON.parse(await readFile(path.join(this.dataDir, DB_FILE), 'utf8')) as Partial<SignatureDb>;
      const signatures: Record<string, string> = {};
      if (parsed && typeof parsed.signatures === 'object' && parsed.signatures) {
        for (const [k, v] of Object.entries(parsed.signatures)) {
          if (/^[0-9a-f]{64}$/.test(k) && typeof v === 'string') signatures[k] = v;
        }
      }
      this.db = { version: 1, signatures };
    } catch {
      this.db = { version: 1, signatures: {} };
    }
    return this.db;
  }

  private cull(db: SignatureDb): void {
    const entries = Object.entries(db.signatures);
    if (entries.length <= MAX_SIGNATURES) return;
    entries.sort(([, a], [, b]) => (a < b ? -1 : 1));
    for (const [k] of entries.slice(0, entries.length - MAX_SIGNATURES)) delete db.signatures[k];
  }

  /** Atomic replace, one write at a time, so a crash never leaves a half-written database. */
  private persist(db: SignatureDb): Promise<void> {
    this.writing = this.writing.then(async () => {
      await mkdir(this.dataDir, { recursive: true, mode: 0o700 });
      const file = path.join(this.dataDir, DB_FILE);
      const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      await writeFile(tmp, JSON.stringify(db), { mode: 0o600 });
      await rename(tmp, file);
    });
    return this.writing;
  }
}
