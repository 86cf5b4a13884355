/**
 * The typed errors every core manager throws. Nothing else crosses a package boundary:
 * `@nbserve/http` maps each kind to a status code in one place (http/src/errors.ts).
 * Throw them with the helpers below (`badRequest`, `notFound`, …), never with `new NbserveError`.
 */
export type NbserveErrorKind =
  | 'bad-request' // malformed or invalid input (400)
  | 'forbidden' // permission denied by the OS or policy (403)
  | 'not-found' // unknown path, id or name (404)
  | 'conflict' // the target already exists / wrong state (409)
  | 'gone' // a resource vanished underneath another one (410)
  | 'too-large' // body or content over a configured limit (413)
  | 'not-implemented' // a capability that is not available here (501)
  | 'unavailable' // a needed external program is missing or not ready (503)
  | 'timeout' // an operation did not finish in time (504)
  | 'internal'; // a bug or an unexpected failure (500)

/**
 * Every `reason` an error body may carry (Jupyter's `{message, reason}`); most errors have none
 * (`null`). The first two are jupyter_server's own (its contents manager sends them); the rest
 * follow their style. A client may branch on these, so a new one is added here, not made up at
 * a throw site.
 */
export const ERROR_REASONS = [
  'bad type', // a directory where a file is wanted (or the reverse), or an unknown contents type
  'bad format', // content not in the declared format (text, base64, json), or a file not in UTF-8 read as text
  'bad encoding', // a request body that is not UTF-8
  'bad path', // a path that is not allowed or cannot be resolved
  'bad name', // a file, notebook, profile or config-section name that is not allowed
  'bad value', // a parameter outside its allowed values (engine count, signature scheme)
  'bad notebook', // a document that is not a valid notebook
  'bad rst', // reStructuredText the renderer refuses
  'bad message', // a kernel message that is not valid (fields, channel)
  'bad frame', // a WebSocket frame that cannot be decoded
  'changed on disk', // a save conflicting with a change on disk since the file was loaded
  'kernel start failed', // the kernel process did not start, died or did not answer in time
  'ipcluster not installed', // ipyparallel's `ipcluster` is not available
  'gateway error', // the Kernel or Enterprise Gateway failed, refused or could not be reached
] as const;

export type ErrorReason = (typeof ERROR_REASONS)[number];

/** What an error may carry besides its kind and message. */
export interface ErrorDetails {
  reason?: ErrorReason | null;
  /** Extra fields some Jupyter clients expect in the error body (e.g. `short_message`). */
  extra?: Record<string, string>;
  cause?: unknown;
}

export class NbserveError extends Error {
  readonly kind: NbserveErrorKind;
  /** Short machine-readable reason, e.g. "bad type"; Jupyter's `reason` field. */
  readonly reason: ErrorReason | null;
  /** Extra fields some Jupyter clients expect in the error body (e.g. `short_message`). */
  readonly extra: Readonly<Record<string, string>>;

  constructor(kind: NbserveErrorKind, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'NbserveError';
    this.kind = kind;
    this.reason = details.reason ?? null;
    this.extra = details.extra ?? {};
  }
}

/** An error of `kind`; `details` is a reason, or the reason, extra fields and cause. */
export function nbserveError(
  kind: NbserveErrorKind,
  message: string,
  details: ErrorReason | ErrorDetails | null = null,
): NbserveError {
  return new NbserveError(kind, message, typeof details === 'string' ? { reason: details } : (details ?? {}));
}

type ErrorHelper = (message: string, details?: ErrorReason | ErrorDetails | null) => NbserveError;

const helper =
  (kind: NbserveErrorKind): ErrorHelper =>
  (message, details) =>
    nbserveError(kind, message, details);

/** 400: malformed or invalid input. */
export const badRequest = helper('bad-request');
/** 403: refused by policy or by the OS. */
export const forbidden = helper('forbidden');
/** 404: no such path, id or name. */
export const notFound = helper('not-found');
/** 409: the target exists, or is in the wrong state. */
export const conflict = helper('conflict');
/** 410: gone from under another resource. */
export const gone = helper('gone');
/** 413: over a configured size limit. */
export const tooLarge = helper('too-large');
/** 501: a capability not available here. */
export const notImplemented = helper('not-implemented');
/** 503: an external program missing, or the server not ready (shutting down). */
export const unavailable = helper('unavailable');
/** 504: did not finish in time. */
export const timeoutError = helper('timeout');
/** 500: an unexpected failure (logged by the server; the client sees only the message). */
export const internalError = helper('internal');

export function isNbserveError(e: unknown): e is NbserveError {
  return e instanceof NbserveError;
}
