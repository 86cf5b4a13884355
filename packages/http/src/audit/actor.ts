import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, MiddlewareHandler } from 'hono';
import type { NbserveEnv } from '../env.js';

/** Who did an audited action: the user and the client's address (`null` when not over a socket). */
export interface Actor {
  readonly user: string | null;
  readonly client: string | null;
}

const current = new AsyncLocalStorage<Actor>();

/**
 * The actor of the request being served, for actions that core managers carry out on its behalf
 * (a session's kernel start); `undefined` outside a request (the culler, a kernel pool).
 */
export function currentActor(): Actor | undefined {
  return current.getStore();
}

/** The request's actor: the hub user in hub mode, else the user the server runs as. */
export function requestActor(c: Context<NbserveEnv>): Actor {
  const { audit } = c.get('services');
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return { user: c.get('hubUser') ?? audit?.localUser ?? null, client: incoming?.socket?.remoteAddress ?? null };
}

/** Runs the rest of the request with its actor known to `currentActor()`; nothing when auditing is off. */
export function auditActor(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    if (!c.get('services').audit) return next();
    await current.run(requestActor(c), next);
  };
}
