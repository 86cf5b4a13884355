import { YNotebook } from '@jupyter/ydoc';
import { WebsocketProvider } from 'y-websocket';
import { encodePath } from '../../../shared/paths.js';
import { ApiError, api } from '../../lib/api.js';
import { pageConfig } from '../../lib/config.js';

/** The server's answer to `PUT /api/collaboration/session/<path>` (as jupyter-collaboration's). */
export interface CollabSessionModel {
  format: string;
  type: string;
  fileId: string;
  sessionId: string;
}

/** How long the page waits for the room's first sync before it opens the notebook without it. */
const SYNC_TIMEOUT_MS = 15_000;

/**
 * Asks the server for a collaboration session on the notebook at `path`. Undefined when the
 * server has none (`--no-collaboration` answers 404, an older server too): the page then works
 * on its own, as before. https://jupyterlab-realtime-collaboration.readthedocs.io/
 */
export async function requestCollabSession(path: string): Promise<CollabSessionModel | undefined> {
  try {
    const model = await api<Partial<CollabSessionModel>>(`api/collaboration/session/${encodePath(path)}`, {
      method: 'PUT',
      body: { format: 'json', type: 'notebook' },
    });
    if (typeof model?.fileId !== 'string' || typeof model.sessionId !== 'string') return undefined;
    return {
      format: model.format ?? 'json',
      type: model.type ?? 'notebook',
      fileId: model.fileId,
      sessionId: model.sessionId,
    };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return undefined;
    throw error;
  }
}

/** A shared notebook: the YNotebook and the y-websocket provider that keeps it in the room. */
export interface SharedNotebook {
  ynotebook: YNotebook;
  provider: WebsocketProvider;
  session: CollabSessionModel;
}

/**
 * Joins the room of `session` and resolves once the first sync with the server is done, so the
 * document holds the notebook (its cells are never built from a half-synced document).
 */
export async function joinRoom(session: CollabSessionModel): Promise<SharedNotebook> {
  // Undo stays per cell editor (y-codemirror.next's UndoManager, local origin only).
  const ynotebook = new YNotebook({ disableDocumentWideUndoRedo: true });
  const { baseUrl } = pageConfig();
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const serverUrl = `${proto}//${location.host}${baseUrl}api/collaboration/room`;
  const room = `${session.format}:${session.type}:${session.fileId}`;
  // No BroadcastChannel: tabs of one browser meet in the server's room like everyone else.
  const provider = new WebsocketProvider(serverUrl, room, ynotebook.ydoc, {
    params: { sessionId: session.sessionId },
    awareness: ynotebook.awareness,
    disableBc: true,
    maxBackoffTime: 5000,
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      provider.off('sync', onSync);
      reject(new Error('The collaboration room did not answer'));
    }, SYNC_TIMEOUT_MS);
    const onSync = (synced: boolean) => {
      if (!synced) return;
      clearTimeout(timer);
      provider.off('sync', onSync);
      resolve();
    };
    provider.on('sync', onSync);
  }).catch((error: unknown) => {
    provider.destroy();
    ynotebook.dispose();
    throw error;
  });
  return { ynotebook, provider, session };
}
