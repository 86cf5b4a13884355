/** A cell of a shared document that a server-side run writes its outputs to. */
export interface CellRun {
  documentId: string;
  cellId: string;
  requestId: string;
}

/** The channels session of the server's own client for cell runs (told apart from frontends' when adopted). */
export const CELL_EXECUTOR_SESSION = 'nbserve-cell-executor';
