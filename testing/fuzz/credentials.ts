import type { Rng } from './rng.js';

/** What a request carries to prove who it is. */
export type CredentialKind =
  | 'none'
  | 'token header'
  | 'bearer header'
  | 'query token'
  | 'cookie'
  | 'cookie + xsrf header'
  | 'cookie + xsrf query'
  | 'cookie + wrong xsrf'
  | 'wrong token'
  | 'forged cookie'
  | 'malformed authorization';

/** Kinds that can never authenticate: a request carrying one must change nothing. */
export const ANONYMOUS: ReadonlySet<CredentialKind> = new Set(['none', 'wrong token', 'forged cookie']);

/** The server's secrets as a client holds them: the token, and a login cookie obtained with it. */
export interface Secrets {
  token: string;
  /** `name=value` of the login cookie the server set. */
  loginCookie: string;
}

export interface Credential {
  kind: CredentialKind;
  headers: Record<string, string>;
  /** `token=…` / `_xsrf=…` for the query string, or ''. */
  query: string;
}

const XSRF = '2|deadbeef|00112233445566778899|1700000000';

export function credential(rng: Rng, secrets: Secrets): Credential {
  const kind = rng.weighted<CredentialKind>([
    [6, 'token header'],
    [1, 'bearer header'],
    [1, 'query token'],
    [1, 'cookie'],
    [2, 'cookie + xsrf header'],
    [1, 'cookie + xsrf query'],
    [1, 'cookie + wrong xsrf'],
    [2, 'none'],
    [1, 'wrong token'],
    [1, 'forged cookie'],
    [1, 'malformed authorization'],
  ]);
  const cookie = (extra = '') => ({ cookie: `${secrets.loginCookie}${extra}` });
  switch (kind) {
    case 'token header':
      return { kind, headers: { authorization: `token ${secrets.token}` }, query: '' };
    case 'bearer header':
      return { kind, headers: { authorization: `Bearer ${secrets.token}` }, query: '' };
    case 'query token':
      return { kind, headers: {}, query: `token=${secrets.token}` };
    case 'cookie':
      return { kind, headers: cookie(), query: '' };
    case 'cookie + xsrf header':
      return { kind, headers: { ...cookie(`; _xsrf=${XSRF}`), 'x-xsrftoken': XSRF }, query: '' };
    case 'cookie + xsrf query':
      return { kind, headers: cookie(`; _xsrf=${XSRF}`), query: `_xsrf=${encodeURIComponent(XSRF)}` };
    case 'cookie + wrong xsrf':
      return { kind, headers: { ...cookie(`; _xsrf=${XSRF}`), 'x-xsrftoken': 'other' }, query: '' };
    case 'wrong token':
      return rng.chance(0.5)
        ? { kind, headers: { authorization: `token ${secrets.token.slice(0, -1)}z` }, query: '' }
        : {
            kind,
            headers: {},
            query: `token=${rng.pick(['', 'x', secrets.token.toUpperCase(), `${secrets.token}x`])}`,
          };
    case 'forged cookie': {
      const [name = 'x'] = secrets.loginCookie.split('=');
      return {
        kind,
        headers: { cookie: `${name}=${rng.pick(['', 'x', '2|1:0|10:1|', `"${'a'.repeat(4000)}"`])}` },
        query: '',
      };
    }
    case 'malformed authorization':
      return {
        kind,
        headers: {
          authorization: rng.pick([
            'token',
            'token ',
            'Basic dXNlcjpwYXNz',
            `token  ${secrets.token}`,
            `TOKEN ${secrets.token}`,
            'Bearer <script>fz1()</script>',
            `token ${'a'.repeat(10_000)}`,
          ]),
        },
        query: '',
      };
    default:
      return { kind, headers: {}, query: '' };
  }
}
