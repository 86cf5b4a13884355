/**
 * A JupyterLab-style collaboration client for tests and benchmarks: `@jupyter/ydoc` documents on
 * `y-websocket@1`'s WebsocketProvider (with `ws` as its WebSocket), which is what JupyterLab's
 * `@jupyter/docprovider` is made of, after `PUT api/collaboration/session/<path>`.
 */
import { YFile, YNotebook } from '@jupyter/ydoc';
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import { WebSocket } from 'ws';
import { WebsocketProvider } from 'y-websocket';
import { TOKEN } from './token.js';
import { waitFor } from './wait.js';

export interface CollabSession {
  format: string;
  type: string;
  fileId: string;
  sessionId: string;
}

export interface CollabClient<D extends YNotebook | YFile = YNotebook> {
  model: D;
  provider: WebsocketProvider;
  roomId: string;
  /** Close codes and reasons the server sent this client. */
  closes: Array<{ code: number; reason: string }>;
  /**
   * jupyter-collaboration's save request (what JupyterLab's Ctrl+S sends): the room saves now,
   * after the edits this client sent before it, and answers with its `status`.
   */
  save(): Promise<string>;
  close(): void;
}

/** y-websocket's message type 2, which jupyter-collaboration uses for JSON strings (the save request). */
const RAW_MESSAGE = 2;

/** `PUT api/collaboration/session/<path>` on a server at `url` (ending in `/`). */
export async function collabSession(url: string, path: string, kind = 'json:notebook'): Promise<CollabSession> {
  const [format, type] = kind.split(':');
  const response = await fetch(`${url}api/collaboration/session/${path.split('/').map(encodeURIComponent).join('/')}`, {
    method: 'PUT',
    headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ format, type }),
  });
  if (response.status !== 200 && response.status !== 201) {
    throw new Error(`session: ${response.status} ${await response.text()}`);
  }
  return (await response.json()) as CollabSession;
}

/** Opens a notebook (or, with `kind: 'text:file'`, a file) at `path` and waits until it is synced. */
export async function openCollabClient(
  url: string,
  path: string,
  options: { kind?: 'json:notebook'; sync?: boolean; connect?: boolean } = {},
): Promise<CollabClient> {
  const session = await collabSession(url, path, options.kind);
  const model = new YNotebook({ disableDocumentWideUndoRedo: false });
  return connect(url, session, model, options.sync ?? true);
}

export async function openCollabFile(url: string, path: string): Promise<CollabClient<YFile>> {
  const session = await collabSession(url, path, 'text:file');
  return connect(url, session, new YFile(), true);
}

/** A new provider for an existing client's document (e.g. after a server restart on another port). */
export async function reconnectCollabClient(url: string, path: string, client: CollabClient): Promise<CollabClient> {
  client.provider.destroy();
  return connect(url, await collabSession(url, path), client.model, true);
}

async function connect<D extends YNotebook | YFile>(
  url: string,
  session: CollabSession,
  model: D,
  sync: boolean,
): Promise<CollabClient<D>> {
  const roomId = `${session.format}:${session.type}:${session.fileId}`;
  const wsBase = `${url.replace(/^http/, 'ws')}api/collaboration/room`;
  const provider = new WebsocketProvider(wsBase, roomId, model.ydoc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params: { sessionId: session.sessionId, token: TOKEN },
    disableBc: true,
    maxBackoffTime: 500,
  });
  const closes: Array<{ code: number; reason: string }> = [];
  provider.on('connection-close', (event: { code: number; reason: string } | null) => {
    if (event) closes.push({ code: event.code, reason: String(event.reason) });
  });
  const saves = new Map<number, (status: string) => void>();
  let nextSave = 0;
  provider.messageHandlers[RAW_MESSAGE] = (_encoder, decoder) => {
    const reply = JSON.parse(decoding.readVarString(decoder)) as {
      type?: string;
      responseTo?: number;
      status?: string;
    };
    if (reply.type === 'save' && typeof reply.responseTo === 'number') {
      saves.get(reply.responseTo)?.(String(reply.status));
      saves.delete(reply.responseTo);
    }
  };
  if (sync) await waitFor(() => provider.synced, { what: `sync of ${roomId}` });
  return {
    model,
    provider,
    roomId,
    closes,
    save() {
      const id = nextSave++;
      const encoder = encoding.createEncoder();
      encoding.writeVarUint(encoder, RAW_MESSAGE);
      encoding.writeVarString(encoder, 'save');
      encoding.writeVarUint(encoder, id);
      const answered = new Promise<string>((resolve) => saves.set(id, resolve));
      provider.ws?.send(encoding.toUint8Array(encoder));
      return answered;
    },
    close() {
      provider.destroy();
      model.dispose();
    },
  };
}
