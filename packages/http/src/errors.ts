import { type ErrorReason, isNbserveError, type NbserveErrorKind } from '@nbserve/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The one place where core errors become HTTP statuses and Jupyter error bodies. */
const STATUS: Record<NbserveErrorKind, ContentfulStatusCode> = {
  'bad-request': 400,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  gone: 410,
  'too-large': 413,
  'not-implemented': 501,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

export interface JupyterErrorBody {
  message: string;
  /** One of core's `ERROR_REASONS`, or null. */
  reason: ErrorReason | null;
  traceback?: string;
  [extra: string]: unknown;
}

export function errorStatus(error: unknown): ContentfulStatusCode {
  return isNbserveError(error) ? STATUS[error.kind] : 500;
}

/** Never leaks a stack trace or internal message: unknown errors become "Unhandled error". */
export function errorBody(error: unknown): JupyterErrorBody {
  if (isNbserveError(error)) {
    return { ...error.extra, message: error.message, reason: error.reason };
  }
  return { message: 'Unhandled error', reason: null, traceback: '' };
}

export function errorResponse(c: Context, error: unknown): Response {
  const status = errorStatus(error);
  // Typed errors are expected outcomes (a missing ipcluster is a 503, not a bug): log only the rest.
  if (!isNbserveError(error) || error.kind === 'internal') logUnexpected(error);
  return c.json(errorBody(error), status);
}

function logUnexpected(error: unknown): void {
  // Server-side log only; the response body never carries it.
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`[nbserve] unhandled error: ${detail}`);
}
