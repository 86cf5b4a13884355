import { AsyncLocalStorage } from 'node:async_hooks';

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

/** Runs `next` with `actor` known to `currentActor()`. */
export function runAsActor<T>(actor: Actor, next: () => Promise<T>): Promise<T> {
  return current.run(actor, next);
}
