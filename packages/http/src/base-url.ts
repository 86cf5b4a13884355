/**
 * Base URLs and mount paths, as the router sees them and as the client sent them. Hono routes on
 * the percent-decoded path (`decodeURI`, which keeps reserved escapes such as `%40` and `%2F`),
 * while Location headers, cookie paths and the pages' URLs must repeat the prefix exactly as the
 * client sent it (JupyterHub hands out `/user/a%40b/`, and browsers send the `%40` as is).
 */

/** Decodes the way Hono's router does: `decodeURI`, with `%25` left escaped. */
export function decodeLikeRouter(path: string): string {
  return decodeURI(path.replace(/%25/g, '%2525'));
}

/** The path to mount an app with this `baseUrl` at (`host.route(path, app)`); '' for `/`. */
export function mountPath(baseUrl: string): string {
  return decodeLikeRouter(baseUrl).replace(/\/+$/, '');
}

/** How many path segments a mount path (Hono's `baseRoutePath`, e.g. `/tools/:user`) spans. */
export function mountDepth(mount: string): number {
  return mount.split('/').filter((segment) => segment !== '').length;
}

/**
 * Splits a request at a mount `depth` segments deep: the prefix exactly as the client sent it
 * (from the still-encoded URL path, ending in `/`) and the decoded path below it (starting with
 * `/`). Counting segments works for both because decoding never creates a `/`.
 */
export function splitAtMount(
  encodedPath: string,
  decodedPath: string,
  depth: number,
): { baseUrl: string; relPath: string } {
  if (depth === 0) return { baseUrl: '/', relPath: decodedPath };
  const prefix = encodedPath.split('/').slice(1, depth + 1);
  return {
    baseUrl: `/${prefix.join('/')}/`,
    relPath: `/${decodedPath
      .split('/')
      .slice(depth + 1)
      .join('/')}`,
  };
}
