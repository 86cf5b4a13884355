import type { Services } from './services.js';

/** Per-request variables that middleware sets for routes. */
export interface NbserveEnv {
  Variables: {
    services: Services;
    /**
     * The full URL prefix of this app as the client sees it, ending in `/`: the mount prefix of a
     * host app plus `baseUrl`. Use it for every `Location` header.
     */
    baseUrl: string;
    /** The request path below `baseUrl`, starting with `/` (e.g. `/api/contents`). */
    relPath: string;
    /** How the request was authenticated; set by the auth middleware. */
    authVia: 'token' | 'cookie' | 'none' | 'disabled';
    /** The JupyterHub user a hub token or login cookie belongs to (hub mode); set by the auth middleware. */
    hubUser?: string;
    /** A random id for this request, in its log line. */
    requestId: string;
    /** The kernel this request is about, for its log line; set by the kernel and session routes. */
    kernelId?: string;
    /** A redirect off this server the app sends on purpose (to JupyterHub): the redirect guard lets it pass. */
    trustedRedirect: string | undefined;
  };
}
