import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { YCodeCell } from '@jupyter/ydoc';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CollabClient,
  collabSession,
  openCollabClient,
  reconnectCollabClient,
} from '../../../testing/collaboration.js';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { type StartServerOptions, startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

/** What survives: restarts, renames, changes on disk; and collaboration off. */
describe('collaboration: persistence and the file on disk', () => {
  const servers: TestServer[] = [];
  const clients: CollabClient[] = [];

  async function start(options: StartServerOptions = {}, tuning = {}): Promise<TestServer> {
    const server = await startServer({
      collaborationTuning: { saveDelayMs: 200, pollMs: 200, idleMs: 300, ...tuning },
      ...options,
    });
    servers.push(server);
    return server;
  }

  async function open(server: TestServer, name: string): Promise<CollabClient> {
    const client = await openCollabClient(server.url, name);
    clients.push(client);
    return client;
  }

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    for (const server of servers.splice(0).reverse()) await server.close();
  });

  const source = (client: CollabClient, index = 0) => client.model.getCell(index).getSource();

  it('a server restart keeps an edit: a new client sees it, an old one reconnects without duplicates', async () => {
    const first = await start({}, { saveDelayMs: 600_000 });
    await fs.writeFile(path.join(first.root, 'nb.ipynb'), JSON.stringify(v4Notebook([v4CodeCell('a = 1')])));
    const a = await open(first, 'nb.ipynb');
    const b = await open(first, 'nb.ipynb');
    a.model.getCell(0).updateSource(5, 5, '\nb = 2');
    await waitFor(() => source(b) === 'a = 1\nb = 2', { what: 'relay' });
    const log = (await fs.readdir(path.join(first.dir, 'data', 'collaboration'))).filter((f) => f.endsWith('.ylog'));
    expect(log).toHaveLength(1);
    await first.stop();
    const second = await start({ root: first.root, dataDir: path.join(first.dir, 'data') });
    const fresh = await open(second, 'nb.ipynb');
    expect(source(fresh)).toBe('a = 1\nb = 2');
    const again = await reconnectCollabClient(second.url, 'nb.ipynb', b);
    clients.push(again);
    again.model.getCell(0).updateSource(0, 0, '# back\n');
    await waitFor(() => source(fresh) === '# back\na = 1\nb = 2', { what: 'the old client heard' });
    expect(fresh.model.cells).toHaveLength(1);
    expect(again.model.cells).toHaveLength(1);
  }, 90_000);

  it('a run cut short by a server stop leaves no `In [*]` and no input prompt in the reopened document', async () => {
    const first = await start({}, { saveDelayMs: 600_000 });
    await fs.writeFile(path.join(first.root, 'nb.ipynb'), JSON.stringify(v4Notebook([v4CodeCell('input()')])));
    const a = await open(first, 'nb.ipynb');
    const b = await open(first, 'nb.ipynb');
    // What the server writes while a run waits in input(); a crash would leave it in the log.
    const cell = a.model.getCell(0) as YCodeCell;
    a.model.transact(() => {
      cell.executionState = 'running';
      cell.ymodel.set('input_request', { request_id: 'r1', kernel_id: 'k1', prompt: '?', password: false });
    });
    await waitFor(() => b.model.getCell(0).ymodel.has('input_request'), { what: 'relay' });
    a.close();
    b.close();
    await first.stop();
    const second = await start({ root: first.root, dataDir: path.join(first.dir, 'data') });
    const fresh = await open(second, 'nb.ipynb');
    const reopened = fresh.model.getCell(0) as YCodeCell;
    expect(reopened.getSource()).toBe('input()');
    expect(reopened.executionState).toBe('idle');
    expect(reopened.ymodel.has('input_request')).toBe(false);
  }, 90_000);

  it('a change on disk wins and reaches every client; a rename through the contents API keeps the file id, a delete closes the room', async () => {
    const server = await start();
    await fs.writeFile(path.join(server.root, 'nb.ipynb'), JSON.stringify(v4Notebook([v4CodeCell('old')])));
    const { fileId } = await collabSession(server.url, 'nb.ipynb');
    const a = await open(server, 'nb.ipynb');
    const later = new Date(Date.now() + 5000); // another mtime than the load's
    await fs.writeFile(
      path.join(server.root, 'nb.ipynb'),
      JSON.stringify(v4Notebook([v4CodeCell('changed outside', { id: 'c1' }), v4CodeCell('new', { id: 'c2' })])),
    );
    await fs.utimes(path.join(server.root, 'nb.ipynb'), later, later);
    await waitFor(() => a.model.cells.length === 2 && source(a) === 'changed outside', { what: 'reload' });

    const moved = await server.fetch('api/contents/nb.ipynb', { method: 'PATCH', json: { path: 'moved.ipynb' } });
    expect(moved.status).toBe(200);
    expect((await collabSession(server.url, 'moved.ipynb')).fileId).toBe(fileId);
    a.model.getCell(1).updateSource(0, 0, 'after rename: ');
    await waitFor(
      async () => (await fs.readFile(path.join(server.root, 'moved.ipynb'), 'utf8')).includes('after rename'),
      {
        what: 'a save to the new path',
      },
    );
    await expect(fs.stat(path.join(server.root, 'nb.ipynb'))).rejects.toThrow();

    // A delete through the contents API forgets the id and closes the room's clients with 4404.
    expect((await server.fetch('api/contents/moved.ipynb', { method: 'DELETE' })).status).toBe(204);
    await waitFor(() => a.closes.length > 0, { what: 'the close' });
    expect(a.closes[0]).toMatchObject({ code: 4404 });
    expect((await server.fetch(`api/fileid/path?id=${fileId}`)).status).toBe(404);
  }, 60_000);

  it('with collaboration off every route is a 404', async () => {
    const server = await start({ collaboration: false });
    await fs.writeFile(path.join(server.root, 'nb.ipynb'), JSON.stringify(v4Notebook([v4CodeCell('x')])));
    const put = await server.fetch('api/collaboration/session/nb.ipynb', {
      method: 'PUT',
      json: { format: 'json', type: 'notebook' },
    });
    expect(put.status).toBe(404);
    expect(
      (await server.fetch('api/collaboration/room/json:notebook:00000000-0000-4000-8000-000000000000')).status,
    ).toBe(404);
    expect((await server.fetch('api/fileid/path?id=x')).status).toBe(404);
    const kernel = '00000000-0000-4000-8000-000000000000';
    expect((await server.fetch(`api/kernels/${kernel}/execute`, { method: 'POST', json: {} })).status).toBe(404);
    expect(server.app.services.collaboration).toBeNull();
  }, 30_000);
});
