import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { type CollabClient, collabSession, openCollabClient } from '../../../testing/collaboration.js';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { type StartServerOptions, startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';

/**
 * A room refuses what would break it — malformed messages, updates that make the notebook invalid,
 * a document past its size limit, a client that never reads — closing that client with a code and
 * a reason, and keeps serving everyone else.
 */
describe('collaboration rooms: bad input', () => {
  let server: TestServer;
  const clients: CollabClient[] = [];

  async function setUp(tuning: StartServerOptions['collaborationTuning'] = {}) {
    server = await startServer({ collaborationTuning: { saveDelayMs: 200, pollMs: 200, ...tuning } });
    await fs.writeFile(path.join(server.root, 'nb.ipynb'), JSON.stringify(v4Notebook([v4CodeCell('x = 1')])));
  }

  async function open(): Promise<CollabClient> {
    const client = await openCollabClient(server.url, 'nb.ipynb');
    clients.push(client);
    return client;
  }

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server.close();
  });

  /** Someone else still edits and is heard: the room keeps serving. */
  async function roomStillServes(a: CollabClient, b: CollabClient, marker: string) {
    a.model.getCell(0).updateSource(0, 0, marker);
    await waitFor(() => b.model.getCell(0).getSource().startsWith(marker), { what: `${marker} relayed` });
  }

  async function rawSocket(): Promise<{ ws: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
    const session = await collabSession(server.url, 'nb.ipynb');
    const url = `${server.url.replace(/^http/, 'ws')}api/collaboration/room/json:notebook:${session.fileId}?token=${TOKEN}`;
    const ws = new WebSocket(url);
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return { ws, closed };
  }

  it('malformed messages close that client with 4400', async () => {
    await setUp();
    const [a, b] = [await open(), await open()];
    for (const bytes of [[7], [0, 1, 200], [0, 9, 0], [1, 5, 1, 2], [0, 2, 3, 1, 2, 3]]) {
      const { ws, closed } = await rawSocket();
      ws.send(Buffer.from(bytes));
      const { code, reason } = await closed;
      expect(code, JSON.stringify(bytes)).toBe(4400);
      expect(reason).toMatch(/^Malformed/);
    }
    await roomStillServes(a, b, '# still here\n');
  }, 60_000);

  it('updates that would make the notebook invalid are refused with 4422 and never relayed or saved', async () => {
    await setUp();
    const b = await open();
    // A bare Y.Doc (a YNotebook would throw on its own invalid cell before sending it).
    const session = await collabSession(server.url, 'nb.ipynb');
    const doc = new Y.Doc();
    const raw = new WebsocketProvider(
      `${server.url.replace(/^http/, 'ws')}api/collaboration/room`,
      `json:notebook:${session.fileId}`,
      doc,
      {
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        params: { token: TOKEN },
        disableBc: true,
      },
    );
    const rawCloses: number[] = [];
    raw.on('connection-close', (event: { code: number } | null) => rawCloses.push(event?.code ?? 0));
    await waitFor(() => raw.synced, { what: 'sync' });
    doc.getArray('cells').push(['not a cell']);
    await waitFor(() => rawCloses.length > 0, { what: 'refusal of a cell that is not a map' });
    expect(rawCloses[0]).toBe(4422);
    raw.destroy();
    const breakers: Array<[string, (client: CollabClient) => void]> = [
      ['a wrong cell type', (c) => c.model.getCell(0).ymodel.set('cell_type', 'bogus')],
      ['outputs that are not a list', (c) => c.model.getCell(0).ymodel.set('outputs', 'nope')],
      [
        'an output without output_type',
        (c) => (c.model.getCell(0).ymodel.get('outputs') as Y.Array<unknown>).push([{ x: 1 }]),
      ],
    ];
    for (const [what, breakIt] of breakers) {
      const bad = await open();
      breakIt(bad);
      await waitFor(() => bad.closes.length > 0, { what: `refusal of ${what}` });
      expect(bad.closes[0]?.code, what).toBe(4422);
      expect(bad.closes[0]?.reason, what).toMatch(/notebook would be invalid/);
      bad.close();
    }
    const a = await open();
    await roomStillServes(a, b, '# fine\n');
    expect(b.model.cells.map((cell) => cell.cell_type)).toEqual(['code']);
    expect(b.model.getCell(0).ymodel.get('outputs')).toBeInstanceOf(Y.Array);
    await waitFor(async () => (await fs.readFile(path.join(server.root, 'nb.ipynb'), 'utf8')).includes('# fine'));
    const saved = JSON.parse(await fs.readFile(path.join(server.root, 'nb.ipynb'), 'utf8'));
    expect(saved.cells).toHaveLength(1);
    expect(saved.cells[0]).toMatchObject({ cell_type: 'code', outputs: [] });
  }, 60_000);

  it('a document growing past its size limit is refused with 4413', async () => {
    await setUp({ maxDocumentBytes: 64 * 1024 });
    const [a, b] = [await open(), await open()];
    const big = await open();
    big.model.getCell(0).updateSource(0, 0, 'x'.repeat(100 * 1024));
    await waitFor(() => big.closes.length > 0, { what: 'refusal' });
    expect(big.closes[0]).toMatchObject({ code: 4413, reason: expect.stringMatching(/too large/) });
    big.close();
    await roomStillServes(a, b, '# small\n');
    expect(b.model.getCell(0).getSource().length).toBeLessThan(100);
  }, 60_000);

  it('a client that never reads is dropped with 4408 while the others go on', async () => {
    await setUp({ maxBufferedBytes: 256 * 1024 });
    const [a, b] = [await open(), await open()];
    const { ws } = await rawSocket();
    // Stop reading: the server's writes pile up in the kernel buffers, then in its own.
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const chunk = 'y'.repeat(64 * 1024);
    for (let i = 0; i < 200; i++) {
      a.model.getCell(0).updateSource(0, 0, chunk);
      a.model.getCell(0).updateSource(0, chunk.length, '');
      if (server.logger.lines.some((line) => line.includes('(4408)'))) break;
      await new Promise((resolve) => setImmediate(resolve)); // the server's turn
    }
    await waitFor(() => server.logger.lines.some((line) => line.includes('(4408)')), { what: 'the drop' });
    expect(server.logger.lines.find((line) => line.includes('(4408)'))).toMatch(/not reading/);
    await roomStillServes(a, b, '# after\n');
    ws.terminate();
  }, 90_000);
});
