/** What a session store keeps: the binding of a path to a kernel. */
export interface SessionRecord {
  id: string;
  path: string;
  name: string;
  type: string;
  kernelId: string;
}

/** Storage of sessions. Memory by default; a file or database store can persist them. */
export interface SessionStore {
  list(): Promise<SessionRecord[]>;
  get(id: string): Promise<SessionRecord | undefined>;
  put(record: SessionRecord): Promise<void>;
  delete(id: string): Promise<void>;
}

export class MemorySessionStore implements SessionStore {
  readonly #records = new Map<string, SessionRecord>();

  async list(): Promise<SessionRecord[]> {
    return [...this.#records.values()].map((r) => ({ ...r }));
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const record = this.#records.get(id);
    return record ? { ...record } : undefined;
  }

  async put(record: SessionRecord): Promise<void> {
    this.#records.set(record.id, { ...record });
  }

  async delete(id: string): Promise<void> {
    this.#records.delete(id);
  }
}
