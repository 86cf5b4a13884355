/**
 * A path-and-query (and fragment) with the `token` query parameter removed. A `Location` header
 * must never echo the token: the browser would keep it in its history, and proxies would log it.
 */
export function withoutTokenParam(target: string): string {
  const hashAt = target.indexOf('#');
  const hash = hashAt < 0 ? '' : target.slice(hashAt);
  const beforeHash = hashAt < 0 ? target : target.slice(0, hashAt);
  const at = beforeHash.indexOf('?');
  if (at < 0) return target;
  const params = new URLSearchParams(beforeHash.slice(at + 1));
  if (!params.has('token')) return target;
  params.delete('token');
  const query = params.toString();
  return `${beforeHash.slice(0, at)}${query ? `?${query}` : ''}${hash}`;
}

/** The request's query string (`?…` or empty) without `token`. */
export function searchWithoutToken(requestUrl: string): string {
  return withoutTokenParam(new URL(requestUrl).search);
}
