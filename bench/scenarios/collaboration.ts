import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { YNotebook } from '@jupyter/ydoc';
import { WebSocket } from 'ws';
import { WebsocketProvider } from 'y-websocket';
import type * as Y from 'yjs';
import { ApiClient } from '../lib/http-client.js';
import { rss } from '../lib/processes.js';
import type { Scenario } from '../lib/scenario.js';
import type { ServerHandle } from '../lib/servers.js';
import { median, percentile } from '../lib/stats.js';

const MB = 1e6;

/** A notebook of `cells` code cells, each with a few lines of source and a stream output. */
function notebookJson(cells: number): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: Array.from({ length: cells }, (_, i) => ({
      cell_type: 'code',
      id: `cell-${i}`,
      metadata: {},
      source: `import math\nvalue_${i} = math.sqrt(${i})\nprint(value_${i})`,
      outputs: [{ output_type: 'stream', name: 'stdout', text: `${Math.sqrt(i)}\n` }],
      execution_count: i + 1,
    })),
  });
}

interface LiveClient {
  model: YNotebook;
  provider: WebsocketProvider;
  close(): void;
}

async function openLive(server: ServerHandle, api: ApiClient, path: string): Promise<LiveClient> {
  const session = await api.json<{ fileId: string; sessionId: string }>('PUT', `/api/collaboration/session/${path}`, {
    format: 'json',
    type: 'notebook',
  });
  const model = new YNotebook({});
  const provider = new WebsocketProvider(
    `${server.origin.replace(/^http/, 'ws')}/api/collaboration/room`,
    `json:notebook:${session.fileId}`,
    model.ydoc,
    {
      WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
      params: { sessionId: session.sessionId, token: server.token },
      disableBc: true,
    },
  );
  const deadline = performance.now() + 60_000;
  while (!provider.synced) {
    if (performance.now() > deadline) throw new Error(`no sync for ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    model,
    provider,
    close() {
      provider.destroy();
      model.dispose();
    },
  };
}

/** Resolves when `text` next changes. */
function nextChange(text: Y.Text): Promise<void> {
  return new Promise((resolve) => {
    const observer = () => {
      text.unobserve(observer);
      resolve();
    };
    text.observe(observer);
  });
}

/**
 * Live documents (docs/collaboration.md): one keystroke in one client until another client sees
 * it, against the same edit through the plain contents API (save the notebook, the other client
 * loads it); and the server's memory per open shared document.
 */
export const collaborationScenario: Scenario = {
  name: 'collaboration',
  group: 'contents',
  title: 'live documents: edit-to-remote-echo latency between two clients, memory per open document',
  budgetMs: 240_000,
  async run(ctx) {
    const dir = join(ctx.root, 'collab');
    mkdirSync(dir, { recursive: true });
    const cells = 100;
    const openDocs = ctx.size(40, 10);
    for (let i = 0; i < openDocs; i++) writeFileSync(join(dir, `doc-${i}.ipynb`), notebookJson(cells));
    const edits = ctx.size(300, 60);
    await ctx.withServer('nbserve', async (server) => {
      const api = new ApiClient(server.origin, server.token);
      try {
        // Edit-to-remote-echo over a shared document.
        const [a, b] = [
          await openLive(server, api, 'collab/doc-0.ipynb'),
          await openLive(server, api, 'collab/doc-0.ipynb'),
        ];
        const live: number[] = [];
        const target = b.model.getCell(0).ymodel.get('source') as Y.Text;
        for (let i = 0; i < edits; i++) {
          const seen = nextChange(target);
          const start = performance.now();
          a.model.getCell(0).updateSource(0, 0, 'x');
          await seen;
          live.push(performance.now() - start);
        }
        // Another program rewriting the file (an editor's atomic save, changing one cell) until
        // a client sees the change: the server's watch, diff and merge (docs/collaboration.md).
        await new Promise((resolve) => setTimeout(resolve, 1500)); // the room saved the edits above
        const file = join(dir, 'doc-0.ipynb');
        const saved = JSON.parse(readFileSync(file, 'utf8')) as { cells: Array<{ source: unknown }> };
        const outside: number[] = [];
        const watched = b.model.getCell(1).ymodel.get('source') as Y.Text;
        for (let i = 0; i < ctx.size(40, 10); i++) {
          (saved.cells[1] as { source: unknown }).source = `outside = ${i}`;
          const seen = nextChange(watched);
          const start = performance.now();
          writeFileSync(`${file}.tmp`, JSON.stringify(saved));
          renameSync(`${file}.tmp`, file);
          await seen;
          outside.push(performance.now() - start);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        ctx.log(`outside write: median ${median(outside).toFixed(2)} ms, p99 ${percentile(outside, 99).toFixed(2)} ms`);
        ctx.record({
          metric: 'outside write (atomic rename, one cell changed) to a client seeing it (median)',
          unit: 'ms',
          values: { nbserve: median(outside) },
          notes: [`${cells}-cell notebook open in two clients; the target is under 500 ms`],
        });
        a.close();
        b.close();
        // The same edit through the contents API: one client saves the notebook, the other loads it.
        const plain: number[] = [];
        const path = '/api/contents/collab/doc-1.ipynb';
        const model = await api.json<{ content: { cells: Array<{ source: string }> } }>('GET', path);
        const other = new ApiClient(server.origin, server.token);
        for (let i = 0; i < edits; i++) {
          const start = performance.now();
          const cell = model.content.cells[0] as { source: string };
          cell.source = `x${cell.source}`;
          const saved = await api.request('PUT', path, { type: 'notebook', content: model.content });
          if (saved.status !== 200) throw new Error(`PUT ${path} -> ${saved.status}`);
          const loaded = await other.request('GET', path);
          if (loaded.status !== 200) throw new Error(`GET ${path} -> ${loaded.status}`);
          plain.push(performance.now() - start);
        }
        other.close();
        ctx.log(`live: median ${median(live).toFixed(2)} ms, p99 ${percentile(live, 99).toFixed(2)} ms`);
        ctx.log(`contents API: median ${median(plain).toFixed(2)} ms, p99 ${percentile(plain, 99).toFixed(2)} ms`);
        const note = `${cells}-cell notebook, ${edits} single-character edits one after the other`;
        ctx.record({
          metric: 'edit to remote echo, live document (median)',
          unit: 'ms',
          values: { nbserve: median(live) },
          notes: [note],
        });
        ctx.record({
          metric: 'edit to remote echo, live document (p99)',
          unit: 'ms',
          values: { nbserve: percentile(live, 99) },
        });
        ctx.record({
          metric: 'the same edit through the contents API: PUT, then GET by the other client (median)',
          unit: 'ms',
          values: { nbserve: median(plain) },
        });
        ctx.record({
          metric: 'the same edit through the contents API (p99)',
          unit: 'ms',
          values: { nbserve: percentile(plain, 99) },
        });

        // Memory per open document: one client on each of `openDocs` notebooks.
        const before = rss(server.pid);
        const clients: LiveClient[] = [];
        for (let i = 0; i < openDocs; i++) clients.push(await openLive(server, api, `collab/doc-${i}.ipynb`));
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const after = rss(server.pid);
        for (const client of clients) client.close();
        const perDoc = (after - before) / openDocs / MB;
        ctx.log(`RSS ${(before / MB).toFixed(1)} -> ${(after / MB).toFixed(1)} MB for ${openDocs} open documents`);
        ctx.record({
          metric: `server memory per open shared document (${cells} cells, RSS growth / ${openDocs} documents)`,
          unit: 'MB',
          values: { nbserve: perDoc },
          notes: ['the contents API keeps nothing per open notebook: 0 MB by design'],
        });
      } finally {
        api.close();
      }
    });
  },
};
