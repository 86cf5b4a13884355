/**
 * Messages between the kernel's protocol thread (ZeroMQ, signals, heartbeat) and the worker
 * thread that owns the user's global scope. Structured-clone friendly plain objects.
 */

export type MimeBundle = Record<string, unknown>;

export interface ErrorContent {
  ename: string;
  evalue: string;
  traceback: string[];
}

export type Language = 'javascript' | 'typescript';

export type ToWorker =
  | {
      type: 'execute';
      /** Identifies the cell for every output it produces, even after it finished. */
      cell: number;
      code: string;
      executionCount: number;
      silent: boolean;
      userExpressions: Record<string, string>;
    }
  | { type: 'complete'; id: number; code: string; cursorPos: number }
  | { type: 'inspect'; id: number; code: string; cursorPos: number; detailLevel: number }
  | { type: 'input_reply'; id: number; value: string }
  | { type: 'input_cancel'; id: number; reason: string }
  | { type: 'interrupt' }
  /** A comm message from a frontend (`comm_open`, `comm_msg`, `comm_close`) or a `comm_info_request`. */
  | { type: 'comm'; id: number; cell: number; msgType: string; content: Record<string, unknown>; buffers: unknown[] };

/** A comm message the kernel publishes on iopub. */
export interface CommMessage {
  msgType: 'comm_open' | 'comm_msg' | 'comm_close';
  content: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export type FromWorker =
  | { type: 'ready' }
  | { type: 'stream'; cell: number; name: 'stdout' | 'stderr'; text: string }
  | {
      type: 'display';
      cell: number;
      data: MimeBundle;
      metadata: Record<string, unknown>;
      transient: Record<string, unknown>;
      update: boolean;
    }
  | { type: 'clear'; cell: number; wait: boolean }
  | { type: 'result'; cell: number; data: MimeBundle; metadata: Record<string, unknown> }
  | { type: 'error'; cell: number; error: ErrorContent }
  | {
      type: 'done';
      cell: number;
      status: 'ok' | 'error';
      error?: ErrorContent;
      userExpressions: Record<string, unknown>;
    }
  | { type: 'input_request'; id: number; cell: number; prompt: string; password: boolean }
  /** The worker handled an `interrupt` (it was free to, so nothing had to be terminated). */
  | { type: 'interrupted' }
  | { type: 'reply'; id: number; content: Record<string, unknown> }
  | ({ type: 'comm'; cell: number } & CommMessage);
