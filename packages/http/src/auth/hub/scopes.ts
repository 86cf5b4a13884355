/**
 * Whether the scopes a hub token holds grant access to this server. JupyterHub's access scopes
 * (https://jupyterhub.readthedocs.io/en/stable/rbac/scopes.html): `access:servers!server=<user>/<name>`
 * for one server, `access:servers!user=<user>` for all of a user's servers, and the unfiltered
 * `access:servers` (admins) for every server. Group filters are not resolved, as in the hub's own
 * single-user check: they admit only when the hub put them in the required list itself.
 */
export function grantsAccess(held: readonly string[], required: readonly string[]): boolean {
  const wanted = new Set(required);
  const usersOfServers = new Set<string>();
  for (const scope of required) {
    const match = /^access:servers!server=([^/]+)\//.exec(scope);
    if (match?.[1]) usersOfServers.add(match[1]);
  }
  return held.some((scope) => {
    if (scope === 'access:servers' || wanted.has(scope)) return true;
    const user = /^access:servers!user=(.+)$/.exec(scope)?.[1];
    return user !== undefined && usersOfServers.has(user);
  });
}
