/**
 * The typed errors every core manager throws. Nothing else crosses a package boundary:
 * `@nbserve/http` maps each kind to a status code in one place (http/src/errors.ts).
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

export class NbserveError extends Error {
  readonly kind: NbserveErrorKind;
  /** Short machine-readable reason, e.g. "bad type"; Jupyter's `reason` field. */
  readonly reason: string | null;
  /** Extra fields some Jupyter clients expect in the error body (e.g. `short_message`). */
  readonly extra: Readonly<Record<string, string>>;

  constructor(
    kind: NbserveErrorKind,
    message: string,
    options: { reason?: string | null; extra?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'NbserveError';
    this.kind = kind;
    this.reason = options.reason ?? null;
    this.extra = options.extra ?? {};
  }
}

export const badRequest = (message: string, reason: string | null = null) =>
  new NbserveError('bad-request', message, { reason });
export const forbidden = (message: string) => new NbserveError('forbidden', message);
export const notFound = (message: string) => new NbserveError('not-found', message);
export const conflict = (message: string) => new NbserveError('conflict', message);
export const tooLarge = (message: string) => new NbserveError('too-large', message);
export const unavailable = (message: string) => new NbserveError('unavailable', message);

export function isNbserveError(e: unknown): e is NbserveError {
  return e instanceof NbserveError;
}
