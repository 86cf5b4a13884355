import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { ContentsManager, FileSystemStore } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import {
  advanceClock,
  LISTING_REUSE_PAST_MS,
  settleDirectories,
  useRealClock,
  useTestClock,
} from '../../../testing/clock.js';
import { startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';

/** Past the size from which a listing is streamed (4,096 entries). */
const COUNT = 6000;
let fx: TestServer;

beforeAll(async () => {
  fx = await startServer();
  const dir = nodePath.join(fx.root, 'big');
  await fs.mkdir(dir);
  for (let i = 0; i < COUNT; i += 500) {
    await Promise.all(
      Array.from({ length: 500 }, (_, k) => fs.writeFile(nodePath.join(dir, `nb ${i + k}.ipynb`), String(k))),
    );
  }
}, 120_000);

afterAll(() => fx.close());

describe.each(TRANSPORTS)('a big directory listing over %s', (kind) => {
  it('is the whole Jupyter model, streamed without a Content-Length', async () => {
    const res = await fx.send(kind)('api/contents/big');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    expect(res.headers.get('Content-Length')).toBeNull();
    if (kind === 'socket') expect(res.headers.get('Transfer-Encoding')).toBe('chunked');
    const text = await res.text();
    // the same bytes the manager's model gives
    const expected = JSON.stringify(await new ContentsManager({ store: new FileSystemStore(fx.root) }).get('big'));
    expect(text).toBe(expected);
    expect(JSON.parse(text).content).toHaveLength(COUNT);
  }, 60_000);

  it('is a 404 with a JSON error when the directory is missing', async () => {
    const res = await fx.send(kind)('api/contents/big-missing');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toContain('big-missing');
  });
});

describe('a big directory listed again', () => {
  it('shows a file another program changed in place, as a fresh listing would', async () => {
    // kept listings are only for directories not changed in the last two seconds
    const store = new FileSystemStore(fx.root);
    useTestClock();
    onTestFinished(useRealClock);
    settleDirectories();
    const list = async () => {
      const res = await fx.send('socket')('api/contents/big');
      expect(res.status).toBe(200);
      advanceClock(LISTING_REUSE_PAST_MS);
      return await res.text();
    };
    const fresh = async () => JSON.stringify(await new ContentsManager({ store }).get('big'));
    const first = await list();
    expect(await list()).toBe(first); // served again as kept
    await fs.appendFile(nodePath.join(fx.root, 'big', 'nb 7.ipynb'), 'more bytes');
    const changed = await list();
    const entry = (JSON.parse(changed).content as { name: string; size: number }[]).find(
      (e) => e.name === 'nb 7.ipynb',
    );
    expect(entry?.size).toBe(1 + 'more bytes'.length);
    expect(changed).toBe(await fresh());
  }, 60_000);
});
