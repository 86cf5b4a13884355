import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A GET timed by curl (a native client, as browsers are), the body discarded: for big answers,
 * where the bench's Node client adds hundreds of milliseconds of its own (each 64 KiB chunk lands
 * in fresh memory) to whichever server it measures. `ms` is curl's time_total: connect to last byte.
 */
export async function curlGet(origin: string, token: string, path: string): Promise<{ status: number; ms: number }> {
  const { stdout } = await run('curl', [
    '--silent',
    '--output',
    '/dev/null',
    '--write-out',
    '%{http_code} %{time_total}',
    '--header',
    `Authorization: token ${token}`,
    `${origin}${path}`,
  ]);
  const [status, seconds] = stdout.trim().split(' ');
  return { status: Number(status), ms: Number(seconds) * 1000 };
}
