import { randomUUID } from 'node:crypto';
import path from 'node:path/posix';
import { badRequest, conflict, gone, isNbserveError, type NbserveError, notFound, notImplemented } from '../errors.js';
import type { KernelManager } from '../kernels/manager.js';
import type { KernelModel } from '../kernels/types.js';
import { MemorySessionStore, type SessionRecord, type SessionStore } from './store.js';

/** What `/api/sessions` returns. `notebook` mirrors path/name for notebook sessions (deprecated). */
export interface SessionModel {
  id: string;
  path: string;
  name: string;
  type: string;
  kernel: KernelModel | null;
  notebook?: { path: string; name: string };
}

export interface KernelRequest {
  id?: string | undefined;
  name?: string | undefined;
}

export interface CreateSessionInput {
  path: string;
  type: string;
  name?: string | undefined;
  kernel?: KernelRequest | undefined;
}

export interface UpdateSessionInput {
  path?: string | undefined;
  name?: string | undefined;
  type?: string | undefined;
  kernel?: KernelRequest | undefined;
}

/** Jupyter's non-standard 501 for a kernel that cannot be started for a session. */
function kernelUnavailable(name: string, short: string, cause: unknown): NbserveError {
  return notImplemented(
    `The '${name}' kernel is not available. Please pick another suitable kernel instead, or install that kernel.`,
    { extra: { short_message: short }, cause },
  );
}

/** Binds paths (notebooks, consoles, files) to kernels. */
export class SessionManager {
  readonly #store: SessionStore;
  readonly #kernels: KernelManager;

  constructor(options: { kernels: KernelManager; store?: SessionStore }) {
    this.#kernels = options.kernels;
    this.#store = options.store ?? new MemorySessionStore();
    // A kernel that is shut down, culled or dead takes its sessions with it.
    this.#kernels.onRemoved((kernelId) => void this.#dropKernel(kernelId));
  }

  async #dropKernel(kernelId: string): Promise<void> {
    for (const record of await this.#store.list())
      if (record.kernelId === kernelId) await this.#store.delete(record.id);
  }

  #model(record: SessionRecord): SessionModel {
    const kernel = this.#kernels.has(record.kernelId) ? this.#kernels.get(record.kernelId).model() : null;
    const model: SessionModel = { id: record.id, path: record.path, name: record.name, type: record.type, kernel };
    if (record.type === 'notebook') model.notebook = { path: record.path, name: record.name };
    return model;
  }

  /** Sessions whose kernel is gone are dropped, as upstream. */
  async list(): Promise<SessionModel[]> {
    const models: SessionModel[] = [];
    for (const record of await this.#store.list()) {
      if (!this.#kernels.has(record.kernelId)) {
        await this.#store.delete(record.id);
        continue;
      }
      models.push(this.#model(record));
    }
    return models;
  }

  async #record(id: string): Promise<SessionRecord> {
    const record = await this.#store.get(id);
    if (!record || !this.#kernels.has(record.kernelId)) {
      if (record) await this.#store.delete(id);
      throw notFound(`Session not found: session_id='${id}'`);
    }
    return record;
  }

  async get(id: string): Promise<SessionModel> {
    return this.#model(await this.#record(id));
  }

  /**
   * Creates a session, or returns the existing one for the same path (its kernel untouched).
   * `created` tells which, though both answer 201 as upstream.
   */
  async create(input: CreateSessionInput): Promise<{ model: SessionModel; created: boolean }> {
    const existing = (await this.list()).find((s) => s.path === input.path);
    if (existing) return { model: existing, created: false };
    const kernelId = await this.#kernelFor(input.kernel, input.path, 'create');
    const record: SessionRecord = {
      id: randomUUID(),
      path: input.path,
      name: input.name ?? path.basename(input.path),
      type: input.type,
      kernelId,
    };
    await this.#store.put(record);
    return { model: this.#model(record), created: true };
  }

  /**
   * The kernel a session gets: the running kernel `kernel.id` names, else a new one started by
   * `kernel.name` (or the default). A create naming a kernel id that is not running starts a new
   * kernel, as Jupyter's servers do (old clients send a stale or placeholder id); an update must
   * name a running one.
   */
  async #kernelFor(kernel: KernelRequest | undefined, sessionPath: string, op: 'create' | 'update'): Promise<string> {
    if (kernel?.id && (op === 'update' || this.#kernels.has(kernel.id))) {
      if (!this.#kernels.has(kernel.id)) throw badRequest(`No such kernel: ${kernel.id}`);
      if (op === 'create' && (await this.#store.list()).some((r) => r.kernelId === kernel.id)) {
        throw conflict(`Kernel ${kernel.id} is already in use by another session`);
      }
      return kernel.id;
    }
    const name = kernel?.name ?? undefined;
    try {
      const started = await this.#kernels.launch({ name, path: sessionPath, env: { JPY_SESSION_NAME: sessionPath } });
      return started.id;
    } catch (error) {
      const shown = name ?? 'default';
      if (isNbserveError(error) && error.kind === 'not-found') {
        throw kernelUnavailable(
          shown,
          op === 'create' ? `${shown} not found` : `Error starting kernel ${shown}`,
          error,
        );
      }
      if (op === 'update') throw kernelUnavailable(shown, `Error starting kernel ${shown}`, error);
      throw error;
    }
  }

  async update(id: string, input: UpdateSessionInput): Promise<SessionModel> {
    const record = await this.#record(id);
    const next: SessionRecord = { ...record };
    if (input.path !== undefined) next.path = input.path;
    if (input.name !== undefined) next.name = input.name;
    if (input.type !== undefined) next.type = input.type;
    let oldKernel: string | undefined;
    if (input.kernel && (input.kernel.id ? input.kernel.id !== record.kernelId : true)) {
      next.kernelId = await this.#kernelFor(input.kernel, next.path, 'update');
      if (next.kernelId !== record.kernelId) oldKernel = record.kernelId;
    }
    await this.#store.put(next);
    // The replaced kernel goes only when no other session still uses it.
    if (
      oldKernel &&
      !(await this.#store.list()).some((r) => r.kernelId === oldKernel) &&
      this.#kernels.has(oldKernel)
    ) {
      await this.#kernels.shutdown(oldKernel);
    }
    return this.#model(next);
  }

  /** Deletes a session and shuts its kernel down. */
  async delete(id: string): Promise<void> {
    const record = await this.#store.get(id);
    if (!record) throw notFound(`Session not found: session_id='${id}'`);
    await this.#store.delete(id);
    if (!this.#kernels.has(record.kernelId)) throw gone('Kernel deleted before session');
    await this.#kernels.shutdown(record.kernelId);
  }
}
