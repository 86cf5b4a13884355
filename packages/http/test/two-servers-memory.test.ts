import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

/** A notebook of about `megabytes` MB: one image output of `fill` bytes, base64. */
function bigNotebook(fill: number, megabytes: number) {
  const png = Buffer.alloc(megabytes * 750_000, fill).toString('base64');
  return {
    cells: [
      {
        cell_type: 'code',
        id: `c${fill}`,
        metadata: {},
        source: `plot(${fill})`,
        execution_count: 1,
        outputs: [{ output_type: 'display_data', metadata: {}, data: { 'image/png': png } }],
      },
    ],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  };
}

type Cell = { source: string | string[]; outputs: { data: Record<string, string | string[]> }[] };

/**
 * A notebook's cell sources and images, hashed (a failure prints a digest, not megabytes of
 * base64); multiline strings joined, as on disk they are lists of lines.
 */
function digest(notebook: unknown): string {
  const text = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join('') : value);
  const cells = (notebook as { cells: Cell[] }).cells;
  const kept = cells.map(({ source, outputs }) => [
    text(source),
    outputs.map((output) => text(output.data['image/png'])),
  ]);
  return createHash('sha256').update(JSON.stringify(kept)).digest('hex');
}

/**
 * Two servers embedded in one process: each lends its own big buffers (request bodies, notebook
 * reads and saves), so one never holds or hands out the other's memory.
 */
describe('two servers in one process', () => {
  let servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
  });

  it('each keeps its own lent buffers: a big body or notebook on one leaves the other untouched', async () => {
    servers = [await startServer(), await startServer()];
    const [a, b] = servers as [TestServer, TestServer];
    expect(a.app.services.lent).not.toBe(b.app.services.lent);
    const kept = (s: TestServer) => [s.app.services.lent.shared.keptBytes, s.app.services.lent.second.keptBytes];
    expect([...kept(a), ...kept(b)]).toEqual([0, 0, 0, 0]);

    // a 4 MB save on a: its body and its serialization are a's spares, b's stay empty
    const put = await a.fetch('api/contents/saved.ipynb', {
      method: 'PUT',
      json: { type: 'notebook', content: bigNotebook(1, 4) },
    });
    expect(put.status).toBe(201);
    expect(a.app.services.lent.shared.keptBytes).toBeGreaterThan(4_000_000);
    expect(kept(b)).toEqual([0, 0]);

    // the first open of a 4 MB notebook on b: read into b's shared spare, answered from b's second
    const before = kept(a);
    await fs.writeFile(nodePath.join(b.root, 'opened.ipynb'), JSON.stringify(bigNotebook(2, 4)));
    const got = await b.fetch('api/contents/opened.ipynb');
    expect(got.status).toBe(200);
    expect(digest(((await got.json()) as { content: unknown }).content)).toBe(digest(bigNotebook(2, 4)));
    expect(b.app.services.lent.shared.keptBytes).toBeGreaterThan(4_000_000);
    // the answer's memory is given back once it is sent, which the client may see finish first
    await waitFor(() => b.app.services.lent.second.keptBytes > 4_000_000, { what: "b's second spare kept" });
    expect(kept(a)).toEqual(before);
  }, 60_000);

  it('both save and serve big notebooks at the same time, each exactly', async () => {
    servers = [await startServer(), await startServer()];
    const [a, b] = servers as [TestServer, TestServer];
    const jobs = [a, b].flatMap((server, s) =>
      [0, 1, 2].map(async (i) => {
        const fill = 10 * s + i + 1;
        const name = `nb-${i}.ipynb`;
        const res = await server.fetch(`api/contents/${name}`, {
          method: 'PUT',
          json: { type: 'notebook', content: bigNotebook(fill, 2 + i) },
        });
        expect(res.status).toBe(201);
        const expected = digest(bigNotebook(fill, 2 + i));
        const read = await server.fetch(`api/contents/${name}`);
        expect(digest(((await read.json()) as { content: unknown }).content)).toBe(expected);
        expect(digest(JSON.parse(await fs.readFile(nodePath.join(server.root, name), 'utf8')))).toBe(expected);
      }),
    );
    await Promise.all(jobs);
  }, 120_000);
});
