import type { Context, MiddlewareHandler } from 'hono';
import type { NbserveEnv } from '../env.js';
import { type Actor, runAsActor } from './actor.js';

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
    await runAsActor(requestActor(c), next);
  };
}
