import { api } from '../../lib/api.js';

/** What the server needs to run one cell of a shared notebook and write its outputs there. */
export interface RemoteExecution {
  kernelId: string;
  /** The shared document's file id (the room's). */
  fileId: string;
  cellId: string;
  code: string;
  /** The page's kernel WebSocket session: `input()` prompts of the run come to this page. */
  session: string;
}

/**
 * Asks the server to run a cell: it sends the execute request to the kernel and writes the
 * outputs, the execution count and the running state into the shared document as they arrive,
 * whether or not this page stays open (the design of jupyter-server-nbmodel:
 * https://github.com/datalayer/jupyter-server-nbmodel). Resolves once the server queued it.
 */
export async function executeOnServer(run: RemoteExecution): Promise<void> {
  await api(`api/kernels/${encodeURIComponent(run.kernelId)}/execute`, {
    method: 'POST',
    body: {
      code: run.code,
      metadata: { cell_id: run.cellId, document_id: `json:notebook:${run.fileId}` },
      session: run.session,
    },
  });
}
