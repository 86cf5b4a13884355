import { createHmac } from 'node:crypto';
import { LoginThrottle } from './login-throttle.js';
import { PasswordSource, verifyPassword } from './password.js';
import { loadOrCreateSecret } from './secret-file.js';
import { type Session, signSession, verifySession } from './session-cookie.js';
import { presentedToken, secretsEqual } from './token.js';

/** How a request proved who it is. `disabled`: auth is off (no token, no password). */
export type AuthVia = 'token' | 'cookie' | 'none' | 'disabled';

export interface AuthResult {
  via: AuthVia;
  /** The token came in `?token=`: the middleware then sets the login cookie. */
  viaQueryToken: boolean;
}

export interface AuthenticatorOptions {
  /** `''` disables token auth; auth is then off unless a password is set. */
  token: string;
  dataDir: string;
  configDir: string;
  /** Read no password from the user's config file (`--disable-user-config`). */
  disableUserConfig?: boolean;
  now?: () => number;
  /** How failed logins wait (tests pass a recorder instead of sleeping). */
  sleep?: (ms: number) => Promise<void>;
}

/** Credentials of one server: the token, the password from the config dir, and signed login cookies. */
export class Authenticator {
  readonly token: string;
  private readonly dataDir: string;
  private readonly password: PasswordSource;
  private readonly now: () => number;
  private secret: Promise<Buffer> | null = null;
  /** Logged-out session ids until their cookies would have expired anyway. */
  private readonly revoked = new Map<string, number>();
  /** Serializes and slows login-form checks (not API tokens, which are 192 random bits). */
  readonly loginThrottle: LoginThrottle;

  constructor(options: AuthenticatorOptions) {
    this.token = options.token;
    this.dataDir = options.dataDir;
    this.password = new PasswordSource(options.disableUserConfig ? null : options.configDir);
    this.now = options.now ?? Date.now;
    this.loginThrottle = new LoginThrottle(this.now, options.sleep);
  }

  async passwordHash(): Promise<string> {
    return this.password.current();
  }

  async authEnabled(): Promise<boolean> {
    return this.token !== '' || (await this.password.current()) !== '';
  }

  /**
   * The cookie signing key mixes the on-disk secret with the current password hash, so setting a
   * new password (even while the server runs) invalidates every existing login cookie.
   */
  private async signingKey(): Promise<Buffer> {
    this.secret ??= loadOrCreateSecret(this.dataDir).catch((error: unknown) => {
      this.secret = null;
      throw error;
    });
    const secret = await this.secret;
    return createHmac('sha256', secret)
      .update(`nbserve-login\0${await this.password.current()}`)
      .digest();
  }

  async authenticate(request: {
    authorization: string | undefined;
    queryToken: string | undefined;
    cookie: string | undefined;
  }): Promise<AuthResult> {
    if (!(await this.authEnabled())) return { via: 'disabled', viaQueryToken: false };
    const presented = presentedToken(request.authorization, request.queryToken);
    if (presented && this.token !== '' && secretsEqual(presented.token, this.token)) {
      return { via: 'token', viaQueryToken: presented.via === 'query' };
    }
    if (request.cookie && (await this.sessionOf(request.cookie))) return { via: 'cookie', viaQueryToken: false };
    return { via: 'none', viaQueryToken: false };
  }

  /** A login form's secret: the token, or the password when one is set. Throttled on failure. */
  checkCredential(value: string): Promise<boolean> {
    return this.loginThrottle.attempt(() => this.matchesCredential(value));
  }

  private async matchesCredential(value: string): Promise<boolean> {
    if (value === '') return false;
    if (this.token !== '' && secretsEqual(value, this.token)) return true;
    const hash = await this.password.current();
    return hash !== '' && (await verifyPassword(value, hash));
  }

  async newLoginCookie(): Promise<string> {
    return signSession(await this.signingKey(), this.now()).value;
  }

  private async sessionOf(cookie: string): Promise<Session | null> {
    const session = verifySession(await this.signingKey(), cookie, this.now());
    if (!session || this.revoked.has(session.id)) return null;
    return session;
  }

  /** Logs a cookie out for good, not just in the browser that held it. */
  async revoke(cookie: string): Promise<void> {
    const session = await this.sessionOf(cookie);
    if (!session) return;
    const nowSeconds = this.now() / 1000;
    for (const [id, issuedAt] of this.revoked) {
      if (nowSeconds - issuedAt > 31 * 24 * 3600) this.revoked.delete(id);
    }
    this.revoked.set(session.id, session.issuedAt);
  }
}
