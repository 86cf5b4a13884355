import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '@nbserve/core';

export const COOKIE_SECRET_FILE = 'nbserve_cookie_secret';

/**
 * Reads the cookie secret from the data dir, creating it (mode 0600, written atomically) on first
 * use. Keeping it on disk lets login cookies survive a server restart.
 */
export async function loadOrCreateSecret(dataDir: string): Promise<Buffer> {
  const file = path.join(dataDir, COOKIE_SECRET_FILE);
  try {
    const text = (await fs.readFile(file, 'utf8')).trim();
    if (/^[0-9a-f]{64,}$/.test(text)) return Buffer.from(text, 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return rotateSecret(dataDir);
}

/** Replaces the cookie secret, which logs every browser out. */
export async function rotateSecret(dataDir: string): Promise<Buffer> {
  const secret = randomBytes(32);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, COOKIE_SECRET_FILE);
  await writeFileAtomic(file, secret.toString('hex'), { mode: 0o600 });
  return secret;
}
