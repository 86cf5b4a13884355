import { createHash } from 'node:crypto';
import os from 'node:os';
import { type AuditEvent, AuditLog } from '@nbserve/core';
import type { NbserveOptions } from '../options.js';
import { type Actor, currentActor } from './actor.js';

/** Fields of an audit line besides `time`, `event`, `user` and `client`. */
export type AuditFields = Omit<AuditEvent, 'event'>;

/**
 * The audit log of one server (`--audit-log`): who did what, one JSON line per action
 * (docs/operations.md has the schema). Built at start, so a path that cannot be written stops the
 * start with the reason.
 */
export class Auditor {
  readonly #log: AuditLog;
  readonly #hashCode: boolean;
  /** Outside JupyterHub the server's one user is the account it runs as. */
  readonly localUser: string;

  constructor(options: NbserveOptions & { auditLog: string }) {
    this.#log = new AuditLog({
      path: options.auditLog,
      maxBytes: options.auditLogMaxBytes,
      backups: options.auditLogBackups,
      onError: (message) => options.logger.error(message),
    });
    this.#hashCode = options.auditLogCode === 'hash';
    this.localUser = options.hub?.user ?? safeUserName();
  }

  /** One line for `event`, by `actor` (by default the current request's; none for the server's own). */
  record(event: string, fields: AuditFields, actor: Actor | undefined = currentActor()): void {
    // With an actor its `user` stands, even `null` (a failed login: nobody known).
    this.#log.write({ event, user: actor ? actor.user : this.localUser, client: actor?.client ?? null, ...fields });
  }

  /** An `execute_request` a client sent: its code as text, or its SHA-256 with `--audit-log-code hash`. */
  execute(actor: Actor, fields: AuditFields & { code: string }): void {
    const { code, ...rest } = fields;
    const recorded = this.#hashCode
      ? { code_sha256: createHash('sha256').update(code, 'utf8').digest('hex') }
      : { code };
    this.record('kernel.execute', { ...rest, ...recorded }, actor);
  }

  close(): void {
    this.#log.close();
  }
}

function safeUserName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return String(process.getuid?.() ?? 'unknown');
  }
}
