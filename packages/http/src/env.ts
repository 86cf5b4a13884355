import type { Services } from './services.js';

/** Per-request variables that middleware sets for routes. */
export interface NbserveEnv {
  Variables: {
    services: Services;
    /** How the request was authenticated; set by the auth middleware. */
    authVia: 'token' | 'cookie' | 'none' | 'disabled';
  };
}
