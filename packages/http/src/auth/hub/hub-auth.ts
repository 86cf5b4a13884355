import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../../options.js';
import { type ActivitySource, HubActivityReporter } from './activity-reporter.js';
import { HubClient, type HubClientOptions, type HubUser } from './client.js';
import { type HubConfig, hubPageUrl } from './config.js';
import { grantsAccess } from './scopes.js';

/** How long the hub's word on a token is trusted before it is asked again. */
const DEFAULT_CACHE_SECONDS = 60;
/** Tokens remembered at most; the oldest go first (a flood of bad tokens cannot grow memory). */
const CACHE_ENTRIES = 1000;
/** The login cookie's own limit; the hub token inside it usually expires sooner. */
const COOKIE_MAX_AGE_SECONDS = 14 * 24 * 3600;
/** An OAuth round trip that takes longer than this starts over. */
export const STATE_MAX_AGE_SECONDS = 600;

export interface HubAuthOptions extends HubClientOptions {
  logger: Logger;
  /** Seconds a token's verdict is cached. Default 60. */
  cacheSeconds?: number;
  now?: () => number;
}

/** Who a request is: an identity the hub vouches for and this server admits. */
export interface HubIdentity {
  user: HubUser;
}

interface Verdict {
  identity: HubIdentity | null;
  expires: number;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const unb64 = (text: string) => Buffer.from(text, 'base64url').toString('utf8');

/**
 * nbserve as JupyterHub's single-user server: who may in (identities whose hub scopes grant access
 * to this server), the signed cookies of the OAuth login, and the activity reports. The cookie key
 * is new at every start, as in JupyterHub's own single-user server: a respawn means a new login.
 */
export class HubAuth {
  readonly config: HubConfig;
  readonly client: HubClient;
  readonly reporter: HubActivityReporter;
  readonly #logger: Logger;
  readonly #key = randomBytes(32);
  readonly #cacheMs: number;
  readonly #now: () => number;
  readonly #verdicts = new Map<string, Verdict>();

  constructor(config: HubConfig, options: HubAuthOptions) {
    this.config = config;
    this.client = new HubClient(config, options);
    this.#logger = options.logger;
    this.#cacheMs = (options.cacheSeconds ?? DEFAULT_CACHE_SECONDS) * 1000;
    this.#now = options.now ?? Date.now;
    this.reporter = new HubActivityReporter(this.client, config.activityIntervalSeconds, options.logger);
  }

  /** The login cookie's name: the OAuth client id (one per server), made a valid cookie name. */
  get cookieName(): string {
    return this.config.clientId.replace(/[^A-Za-z0-9!#$&'*+.^_`|~-]/g, '-');
  }

  get stateCookieName(): string {
    return `${this.cookieName}-oauth-state`;
  }

  /** The path below the base URL where the hub sends browsers back (`/oauth_callback`). */
  get callbackRelPath(): string {
    return `/${this.config.callbackPath.slice(this.config.servicePrefix.length)}`;
  }

  get controlPanelUrl(): string {
    return hubPageUrl(this.config, 'home');
  }

  get logoutUrl(): string {
    return hubPageUrl(this.config, 'logout');
  }

  /** The hub's authorize URL for a login whose state is `state`. */
  authorizeUrl(state: string): string {
    const query = new URLSearchParams({
      client_id: this.config.clientId,
      redirect_uri: this.config.callbackUrl,
      response_type: 'code',
      state,
    });
    return `${hubPageUrl(this.config, 'api/oauth2/authorize')}?${query}`;
  }

  /**
   * The identity of a hub token if this server admits it, else `null`. Cached briefly either way;
   * the hub being unreachable is an error (503), never a verdict.
   */
  async identify(token: string): Promise<HubIdentity | null> {
    const key = createHash('sha256').update(token, 'utf8').digest('base64url');
    const now = this.#now();
    const cached = this.#verdicts.get(key);
    if (cached && cached.expires > now) return cached.identity;
    this.#verdicts.delete(key);
    const user = await this.client.userForToken(token);
    let identity: HubIdentity | null = null;
    if (user && grantsAccess(user.scopes, this.config.accessScopes)) identity = { user };
    else if (user) this.#logger.warn(`Refusing ${user.kind} ${JSON.stringify(user.name)}: no access to this server`);
    if (this.#verdicts.size >= CACHE_ENTRIES) {
      const oldest = this.#verdicts.keys().next();
      if (!oldest.done) this.#verdicts.delete(oldest.value);
    }
    this.#verdicts.set(key, { identity, expires: now + this.#cacheMs });
    return identity;
  }

  #mac(kind: string, payload: string): Buffer {
    return createHmac('sha256', this.#key).update(`${kind}\0${payload}`).digest();
  }

  #sign(kind: string, fields: readonly string[]): string {
    const payload = [...fields.map(b64), String(Math.floor(this.#now() / 1000))].join('.');
    return `${payload}.${this.#mac(kind, payload).toString('base64url')}`;
  }

  #verify(kind: string, value: string, count: number, maxAgeSeconds: number): string[] | null {
    const parts = value.split('.');
    if (parts.length !== count + 2 || value.length > 8192) return null;
    const signature = Buffer.from(parts.pop() ?? '', 'base64url');
    const payload = parts.join('.');
    const expected = this.#mac(kind, payload);
    if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
    const age = this.#now() / 1000 - Number(parts.pop());
    if (!(age > -60 && age < maxAgeSeconds)) return null;
    return parts.map(unb64);
  }

  /** The login cookie's value: the hub token the login got, signed. */
  loginCookie(token: string): string {
    return this.#sign('login', [token]);
  }

  /** The hub token a login cookie carries, if the cookie is ours and not too old. */
  tokenFromCookie(value: string): string | null {
    return this.#verify('login', value, 1, COOKIE_MAX_AGE_SECONDS)?.[0] ?? null;
  }

  /** A new OAuth state and the signed cookie that remembers it with the page to go back to. */
  newState(next: string): { state: string; cookie: string } {
    const state = randomBytes(24).toString('base64url');
    return { state, cookie: this.#sign('state', [state, next]) };
  }

  /** The page to go back to when `state` is the one the cookie remembers; else `null`. */
  checkState(state: string, cookie: string): string | null {
    const fields = this.#verify('state', cookie, 2, STATE_MAX_AGE_SECONDS);
    if (!fields) return null;
    const [expected = '', next = ''] = fields;
    const a = Buffer.from(state);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b) ? next : null;
  }

  /** Starts the activity reports (a listening server calls this). */
  startReporting(source: ActivitySource): void {
    this.reporter.start(source, this.config.activityUrl !== null);
  }

  close(): void {
    this.reporter.stop();
  }
}
