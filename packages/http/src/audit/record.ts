import type { Context } from 'hono';
import type { NbserveEnv } from '../env.js';
import type { AuditFields } from './auditor.js';
import { requestActor } from './request-actor.js';

/** One audit line for the action this request did (nothing when the audit log is off). */
export function recordAudit(c: Context<NbserveEnv>, event: string, fields: AuditFields): void {
  c.get('services').audit?.record(event, fields, requestActor(c));
}

/** A failed login: who tried is not known, so `user` is `null`; the client's address is kept. */
export function recordFailedLogin(c: Context<NbserveEnv>, method: string): void {
  c.get('services').audit?.record('login.failed', { method }, { ...requestActor(c), user: null });
}
