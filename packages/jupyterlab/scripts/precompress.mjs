/**
 * Writes `<file>.br` and `<file>.gz` beside each compressible static file, so the server sends
 * precompressed bodies without compressing per request. A variant that is not smaller is left out.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
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
  for (const file of files) {
    const body = await readFile(file);
    if (body.length < MIN_BYTES) continue;
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
  }
  return count;
}
