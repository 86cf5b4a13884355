/** Everything that configures one nbserve instance; the CLI maps flags onto this. */
export interface NbserveOptions {
  /** Directory served as the contents root. */
  root: string;
  /** URL prefix of every route, always starting and ending with `/`. Default `/`. */
  baseUrl: string;
  /** Auth token; `''` disables auth entirely. */
  token: string;
  /** Serve and list dot-files. */
  allowHidden: boolean;
  /** Largest accepted request body in bytes. */
  maxBodySize: number;
}

export const DEFAULT_MAX_BODY_SIZE = 512 * 1024 * 1024;

export function normalizeBaseUrl(baseUrl: string | undefined): string {
  let url = (baseUrl ?? '/').trim();
  if (!url.startsWith('/')) url = `/${url}`;
  if (!url.endsWith('/')) url = `${url}/`;
  return url.replace(/\/{2,}/g, '/');
}
