/**
 * Writes `<file>.br` and `<file>.gz` beside each compressible static file, so the server sends
 * precompressed bodies without compressing per request. A variant that is not smaller is left out.
 * Brotli at its best quality (11) costs most of the build's CPU time (about 30 s for the 18 MB of
 * JavaScript; quality 9 takes a tenth of that for files 10 % larger), paid once per build: the
 * published package carries the result, and first loads are what it is for.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const COMPRESSIBLE = /\.(js|css|json|svg|html|txt|map|ttf|eot|otf|wasm|xml)$/;
const MIN_BYTES = 1024;
const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Compresses the files under `dir`; returns how many got a compressed variant. */
export async function precompress(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
  let count = 0;
  const compressOne = async (file) => {
    const body = await readFile(file);
    if (body.length < MIN_BYTES) return;
    const [br, gzipped] = await Promise.all([
      brotli(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      }),
      gz(body, { level: 9 }),
    ]);
    if (br.length < body.length) await writeFile(`${file}.br`, br);
    if (gzipped.length < body.length) await writeFile(`${file}.gz`, gzipped);
    count += 1;
  };
  // zlib runs on libuv's thread pool: a few files at a time keep every core busy.
  const queue = [...files];
  const worker = async () => {
    while (queue.length > 0) await compressOne(queue.pop());
  };
  await Promise.all(Array.from({ length: availableParallelism() }, worker));
  return count;
}
