import type { WebSocket } from 'ws';
import { badRequest, type NbserveError, type NbserveErrorKind, nbserveError } from '../errors.js';

/**
 * Where kernels run when nbserve is a gateway client, as jupyter_server's `GatewayClient`
 * (https://jupyter-server.readthedocs.io/en/latest/other/full-config.html, `GatewayClient.*`).
 */
export interface GatewayOptions {
  /** The gateway's http(s) URL (its base URL); `/api/kernels` etc. are appended. */
  url: string;
  /** The gateway's ws(s) URL; default the http URL with `ws` in place of `http`. */
  wsUrl?: string;
  /** Sent as `Authorization: token <authToken>` unless `headers` name an Authorization. */
  authToken?: string;
  /** Extra headers on every request and WebSocket handshake (e.g. for a proxy in front). */
  headers?: Readonly<Record<string, string>>;
  /** How long one request (or a channels WebSocket handshake) may take; kernel starts may take longer (`startTimeoutMs`). */
  requestTimeoutMs: number;
  /** Names of variables of the server's environment forwarded at kernel start besides `KERNEL_*`. */
  env?: readonly string[];
  /** The server's environment (what `KERNEL_*` are taken from). Default `process.env`. */
  processEnv?: Readonly<Record<string, string | undefined>>;
}

/** Extra padding between the gateway's kernel launch timeout and the start request's own (upstream's `launch_timeout_pad`). */
const LAUNCH_TIMEOUT_PAD_S = 2;
/** GET and DELETE are retried on connection errors and 502/503/504, as upstream's `RetryableHTTPClient`. */
const MAX_RETRIES = 2;
const RETRY_BACKOFF_MS = 100;
const RETRIED_STATUS = new Set([502, 503, 504]);

/** What a gateway HTTP status becomes here: its own 4xx stay what they are, anything else means it cannot serve (503). */
const PASSED_THROUGH: Record<number, NbserveErrorKind> = {
  400: 'bad-request',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
};

export interface GatewayRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  /** Default `requestTimeoutMs`. */
  timeoutMs?: number;
}

/** HTTP and WebSocket access to one gateway: headers, timeouts, retries, and errors that name it. */
export class GatewayClient {
  readonly options: GatewayOptions;
  /** The gateway as named in errors and logs: its URL without credentials, query or fragment. */
  readonly name: string;
  readonly #base: URL;
  readonly #wsBase: URL;
  /** `KERNEL_LAUNCH_TIMEOUT` forwarded to the gateway (seconds). */
  readonly launchTimeoutS: number;
  /** How long a kernel start request may take: at least the launch timeout plus a pad. */
  readonly startTimeoutMs: number;
  /** Whether the gateway accepts the v1 kernel WebSocket protocol; unknown until a channel opened. */
  v1: boolean | undefined;
  /** `user:password@` of the URL, sent as Basic authentication (fetch refuses URLs with credentials). */
  readonly #basic: string | undefined;

  constructor(options: GatewayOptions) {
    this.options = options;
    this.#base = parseBase(options.url, ['http:', 'https:'], 'gateway URL');
    if (this.#base.username || this.#base.password) {
      const user = decodeURIComponent(this.#base.username);
      this.#basic = Buffer.from(`${user}:${decodeURIComponent(this.#base.password)}`).toString('base64');
      this.#base.username = '';
      this.#base.password = '';
    }
    this.#wsBase = options.wsUrl
      ? parseBase(options.wsUrl, ['ws:', 'wss:'], 'gateway WebSocket URL')
      : new URL(this.#base.href.replace(/^http/, 'ws'));
    this.name = `${this.#base.origin}${this.#base.pathname}`;
    // Upstream keeps request_timeout >= KERNEL_LAUNCH_TIMEOUT + pad; here only the start request
    // is lengthened, so a short request timeout still fails every other request quickly.
    const env = options.processEnv ?? process.env;
    const fromEnv = Number.parseInt(env.KERNEL_LAUNCH_TIMEOUT ?? '', 10);
    const requestS = options.requestTimeoutMs / 1000;
    this.launchTimeoutS =
      Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : Math.max(1, Math.floor(requestS - LAUNCH_TIMEOUT_PAD_S));
    this.startTimeoutMs = Math.max(options.requestTimeoutMs, (this.launchTimeoutS + LAUNCH_TIMEOUT_PAD_S) * 1000);
  }

  /** Headers of every request and handshake: the configured ones, then the token. */
  headers(): Record<string, string> {
    const headers: Record<string, string> = { ...this.options.headers };
    const hasAuth = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');
    if (this.options.authToken && !hasAuth) headers.Authorization = `token ${this.options.authToken}`;
    else if (this.#basic && !hasAuth) headers.Authorization = `Basic ${this.#basic}`;
    return headers;
  }

  /** The http(s) URL of a gateway path (`api/kernels`, without a leading slash). */
  url(path: string): string {
    return new URL(path, this.#base).href;
  }

  wsUrl(path: string): string {
    return new URL(path, this.#wsBase).href;
  }

  /** A request whose answer is JSON; undefined for an empty body (204). */
  async json(path: string, request: GatewayRequest = {}): Promise<unknown> {
    const response = await this.fetch(path, request);
    const text = new TextDecoder().decode(response.body);
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      throw this.#error('unavailable', `answered ${path} with something that is not JSON`);
    }
  }

  /**
   * One request, its body read in full within the timeout. Connection failures, timeouts and
   * gateway errors become NbserveErrors whose message names the gateway.
   */
  async fetch(path: string, request: GatewayRequest = {}): Promise<{ status: number; body: Uint8Array }> {
    const method = request.method ?? 'GET';
    const timeoutMs = request.timeoutMs ?? this.options.requestTimeoutMs;
    const retried = method === 'GET' || method === 'DELETE';
    const headers = this.headers();
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      const retry = retried && attempt < MAX_RETRIES;
      let status: number;
      let statusText: string;
      let body: Uint8Array;
      try {
        const response = await fetch(this.url(path), {
          method,
          headers,
          signal: AbortSignal.timeout(timeoutMs),
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        });
        status = response.status;
        statusText = response.statusText;
        body = new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        if (retry && !isTimeout(error)) {
          await sleep(RETRY_BACKOFF_MS * 2 ** attempt);
          continue;
        }
        throw this.unreachable(error, timeoutMs);
      }
      if (status >= 200 && status < 300) return { status, body };
      if (retry && RETRIED_STATUS.has(status)) {
        await sleep(RETRY_BACKOFF_MS * 2 ** attempt);
        continue;
      }
      throw this.httpError(status, statusText, body);
    }
  }

  /** The error for a request or handshake that got no answer. */
  unreachable(error: unknown, timeoutMs: number): NbserveError {
    if (isTimeout(error)) return this.timedOut(timeoutMs);
    return this.#error('unavailable', `is not reachable (${causeCode(error)}); check that it is running`, error);
  }

  timedOut(timeoutMs: number): NbserveError {
    return this.#error('unavailable', `did not answer within ${formatSeconds(timeoutMs)}`);
  }

  /** The error for a gateway's non-2xx answer, with its Jupyter error message when it sent one. */
  httpError(status: number, statusText: string, body?: Uint8Array): NbserveError {
    let detail = statusText;
    try {
      const parsed = JSON.parse(new TextDecoder().decode(body)) as { message?: unknown; reason?: unknown };
      const message = typeof parsed.message === 'string' ? parsed.message : '';
      const reason = typeof parsed.reason === 'string' ? parsed.reason : '';
      detail = [message, reason].filter((s) => s !== '').join(': ') || statusText;
    } catch {
      // not a Jupyter error body
    }
    return this.#error(PASSED_THROUGH[status] ?? 'unavailable', `answered ${status}${detail ? ` (${detail})` : ''}`);
  }

  #error(kind: NbserveErrorKind, what: string, cause?: unknown): NbserveError {
    return nbserveError(kind, `Gateway ${this.name} ${what}`, { reason: 'gateway error', cause });
  }

  /** Opens a WebSocket to a gateway path with the configured headers; resolves once open. */
  async openWebSocket(path: string, protocols: string[]): Promise<WebSocket> {
    // loaded on first use: a server without a gateway never pays for compiling ws at start
    const { WebSocket } = await import('ws');
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.wsUrl(path), protocols, {
        headers: this.headers(),
        handshakeTimeout: this.options.requestTimeoutMs,
        perMessageDeflate: false,
        followRedirects: false,
      });
      const fail = (error: Error) => {
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        const status = /Unexpected server response: (\d+)/.exec(error.message)?.[1];
        if (status) reject(this.httpError(Number(status), ''));
        else if (/handshake has timed out/.test(error.message)) reject(this.timedOut(this.options.requestTimeoutMs));
        else reject(this.unreachable(error, this.options.requestTimeoutMs));
      };
      ws.once('error', fail);
      ws.once('open', () => {
        ws.off('error', fail);
        resolve(ws);
      });
    });
  }
}

function parseBase(raw: string, protocols: string[], what: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`The ${what} is not a URL: ${JSON.stringify(raw)}`);
  }
  if (!protocols.includes(url.protocol)) {
    throw badRequest(`The ${what} must start with ${protocols.join(' or ')}//`);
  }
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** ECONNREFUSED, ENOTFOUND, … from fetch's `cause`, or the error's own message. */
function causeCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** True for a handshake the gateway accepted without the offered subprotocol (it does not speak v1). */
export function isSubprotocolRefusal(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error && /Server sent no subprotocol/.test(cause.message);
}
