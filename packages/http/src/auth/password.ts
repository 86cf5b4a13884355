import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '@nbserve/core';
import * as v from 'valibot';

/** The user config file in the config dir; `nbserve password` writes `password` into it. */
export const CONFIG_FILE = 'nbserve_config.json';

// scrypt cost parameters: N=2^15 takes ~50 ms here, slow enough to hurt guessing, fast enough for a login.
const N = 32768;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Hashes a password as `scrypt:<N>:<r>:<p>:<salt hex>:<key hex>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('hex'), key.toString('hex')].join(':');
}

const HASH_PATTERN = /^scrypt:(\d+):(\d+):(\d+):([0-9a-f]+):([0-9a-f]+)$/;

/** Checks a password against a stored hash in constant time; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = HASH_PATTERN.exec(stored);
  if (!match) return false;
  const [n, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Refuse absurd parameters from a tampered file instead of burning memory.
  if (n > 2 ** 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(match[5] ?? '', 'hex');
  if (expected.length !== KEY_LENGTH) return false;
  const key = await scryptAsync(password, Buffer.from(match[4] ?? '', 'hex'), n, r, p);
  return timingSafeEqual(key, expected);
}

const ConfigFileSchema = v.looseObject({ password: v.optional(v.string()) });

/** Reads `nbserve_config.json`; a missing file is an empty config. */
export async function readUserConfig(configDir: string): Promise<v.InferOutput<typeof ConfigFileSchema>> {
  let text: string;
  try {
    text = await fs.readFile(path.join(configDir, CONFIG_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed = v.safeParse(ConfigFileSchema, JSON.parse(text));
  if (!parsed.success) throw new Error(`${CONFIG_FILE} is not a JSON object with a string "password"`);
  return parsed.output;
}

/** Stores a password hash in `nbserve_config.json`, keeping the file's other keys. */
export async function storePasswordHash(configDir: string, hash: string): Promise<string> {
  const config = await readUserConfig(configDir);
  await fs.mkdir(configDir, { recursive: true, mode: 0o700 });
  const file = path.join(configDir, CONFIG_FILE);
  await writeFileAtomic(file, `${JSON.stringify({ ...config, password: hash }, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/**
 * The current password hash, re-read when the file changes, so `nbserve password` takes effect
 * (and invalidates cookies) in a running server.
 */
export class PasswordSource {
  private cached: { mtimeMs: number; hash: string } | null = null;

  /** `configDir` null: the user's configuration is off, there is never a password. */
  constructor(private readonly configDir: string | null) {}

  async current(): Promise<string> {
    if (this.configDir === null) return '';
    const file = path.join(this.configDir, CONFIG_FILE);
    let mtimeMs: number;
    try {
      mtimeMs = (await fs.stat(file)).mtimeMs;
    } catch {
      this.cached = null;
      return '';
    }
    if (this.cached?.mtimeMs === mtimeMs) return this.cached.hash;
    let hash = '';
    try {
      hash = (await readUserConfig(this.configDir)).password ?? '';
    } catch {
      // A broken config file disables password login rather than the server.
    }
    this.cached = { mtimeMs, hash };
    return hash;
  }
}
