import { api } from '../../lib/api.js';

/** What the server needs to run one cell of a shared notebook and write its outputs there. */
export interface RemoteExecution {
  kernelId: string;
  /** The shared document's room id, `json:notebook:<fileId>`. */
  documentId: string;
  cellId: string;
  code: string;
}

/** A run as `GET /api/kernels/<id>/requests/<request_id>` shows it. */
export interface ExecutionRequest {
  request_id: string;
  status: 'queued' | 'running' | 'ok' | 'error' | 'aborted';
  pending: boolean;
  ename?: string;
  evalue?: string;
}

/** How often a page looks whether a run it queued has started (a run after a failed one never does). */
const POLL_MS = 500;

/**
 * Asks the server to run a cell: it sends the execute request to the kernel and writes the
 * outputs, the execution count and the running state into the shared document as they arrive,
 * whether or not this page stays open (the design of jupyter-server-nbmodel:
 * https://github.com/datalayer/jupyter-server-nbmodel). Resolves with the queued request.
 */
export function executeOnServer(run: RemoteExecution): Promise<ExecutionRequest> {
  return api<ExecutionRequest>(`api/kernels/${encodeURIComponent(run.kernelId)}/execute`, {
    method: 'POST',
    body: { code: run.code, metadata: { cell_id: run.cellId, document_id: run.documentId } },
  });
}

/**
 * Resolves once the request left the queue: it started (the document then tells the rest) or
 * it ended without running (aborted after an earlier cell failed, the kernel went away).
 */
export async function whenStarted(
  kernelId: string,
  requestId: string,
  stillWaiting: () => boolean,
): Promise<ExecutionRequest | undefined> {
  for (;;) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (!stillWaiting()) return undefined;
    const request = await api<ExecutionRequest>(
      `api/kernels/${encodeURIComponent(kernelId)}/requests/${encodeURIComponent(requestId)}`,
    ).catch(() => undefined);
    if (request?.status !== 'queued') return request;
  }
}
