import * as fs from 'node:fs/promises';
import { removeOrphanTempsOf, tempPathFor } from './temp-files.js';

/**
 * Replaces `file` with `data` atomically: a temp file next to it (nbserve's temp naming, so a
 * crash's debris is recognised and swept), optionally fsynced, then renamed over the target.
 * The parent directory must exist. Temps a crashed writer left for this file are removed too.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: { mode?: number; sync?: boolean } = {},
): Promise<void> {
  const temp = tempPathFor(file);
  try {
    const handle = await fs.open(temp, 'wx', options.mode ?? 0o600);
    try {
      await handle.writeFile(data);
      if (options.sync ?? true) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await removeOrphanTempsOf(file).catch(() => 0);
}
