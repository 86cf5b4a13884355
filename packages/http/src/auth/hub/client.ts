import { forbidden, unavailable } from '@nbserve/core';
import * as v from 'valibot';
import type { HubConfig } from './config.js';

/** What `GET /hub/api/user` says about a token's owner; only what nbserve reads is required. */
const HubUserSchema = v.looseObject({
  kind: v.optional(v.pipe(v.string(), v.maxLength(64)), 'user'),
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
  admin: v.optional(v.nullable(v.boolean()), false),
  scopes: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(1024))), v.maxLength(10_000)), []),
});
export type HubUser = v.InferOutput<typeof HubUserSchema>;

/** The token endpoint's answer (RFC 6749 §5.1). */
const TokenReplySchema = v.looseObject({
  access_token: v.pipe(v.string(), v.minLength(1), v.maxLength(4096)),
});

export interface HubClientOptions {
  /** Milliseconds one hub request may take. Default 20 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * The hub API calls a single-user server makes, each with the server's own token unless the call
 * is about another token. Failures are core errors: the hub down or confused is a 503, a refused
 * OAuth code a 403. Messages never carry a token or a hub response body.
 */
export class HubClient {
  readonly #config: HubConfig;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(config: HubConfig, options: HubClientOptions = {}) {
    this.#config = config;
    this.#timeoutMs = options.timeoutMs ?? 20_000;
    this.#fetch = options.fetch ?? fetch;
  }

  async #request(url: string, init: RequestInit, what: string, token = this.#config.apiToken): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `token ${token}`);
    try {
      return await this.#fetch(url, {
        ...init,
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      const reason = error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'failed';
      throw unavailable(`JupyterHub could not be reached: ${what} ${reason}`);
    }
  }

  async #json<T>(response: Response, schema: v.GenericSchema<unknown, T>, what: string): Promise<T> {
    const parsed = v.safeParse(schema, await response.json().catch(() => undefined));
    if (!parsed.success) throw unavailable(`JupyterHub sent an unexpected answer to ${what}`);
    return parsed.output;
  }

  /** `GET <api>`: is the hub there? (The reference server does this once at start.) */
  async ping(): Promise<void> {
    const response = await this.#request(this.#config.apiUrl, {}, 'GET /hub/api');
    await response.body?.cancel();
    if (response.status >= 500) throw unavailable(`JupyterHub answered ${response.status} to GET /hub/api`);
  }

  /** The owner of a token, or `null` when the hub does not know it (or it expired). */
  async userForToken(token: string): Promise<HubUser | null> {
    const response = await this.#request(`${this.#config.apiUrl}/user`, {}, 'GET /hub/api/user', token);
    if (response.status === 401 || response.status === 403 || response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw unavailable(`JupyterHub answered ${response.status} to GET /hub/api/user`);
    }
    return this.#json(response, HubUserSchema, 'GET /hub/api/user');
  }

  /** The OAuth code of a login exchanged for a token, the server's API token as client secret. */
  async tokenForCode(code: string): Promise<string> {
    const body = new URLSearchParams({
      client_id: this.#config.clientId,
      client_secret: this.#config.apiToken,
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.#config.callbackUrl,
    });
    const response = await this.#request(
      `${this.#config.apiUrl}/oauth2/token`,
      { method: 'POST', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
      'POST /hub/api/oauth2/token',
    );
    if (response.status >= 400 && response.status < 500) {
      await response.body?.cancel();
      throw forbidden('JupyterHub refused the login code. Try logging in again.');
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw unavailable(`JupyterHub answered ${response.status} to POST /hub/api/oauth2/token`);
    }
    return (await this.#json(response, TokenReplySchema, 'POST /hub/api/oauth2/token')).access_token;
  }

  /** Reports the server's last activity, in the shape the hub's activity API takes. */
  async postActivity(lastActivity: Date): Promise<void> {
    const url = this.#config.activityUrl;
    if (url === null) return;
    const timestamp = lastActivity.toISOString();
    const body = JSON.stringify({
      servers: { [this.#config.serverName]: { last_activity: timestamp } },
      last_activity: timestamp,
    });
    const response = await this.#request(
      url,
      { method: 'POST', body, headers: { 'Content-Type': 'application/json' } },
      'POST activity',
    );
    await response.body?.cancel();
    if (response.status >= 300) throw unavailable(`JupyterHub answered ${response.status} to the activity report`);
  }
}
