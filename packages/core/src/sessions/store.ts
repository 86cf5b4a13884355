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
  /** Told of the kernels whose sessions changed (a persisted kernel's record keeps them). */
  onChange: (kernelId: string) => void = () => {};

  constructor(records: readonly SessionRecord[] = []) {
    for (const record of records) this.#records.set(record.id, { ...record });
  }

  /** The sessions of one kernel, at once. */
  forKernel(kernelId: string): SessionRecord[] {
    return [...this.#records.values()].filter((r) => r.kernelId === kernelId).map((r) => ({ ...r }));
  }

  async list(): Promise<SessionRecord[]> {
    return [...this.#records.values()].map((r) => ({ ...r }));
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const record = this.#records.get(id);
    return record ? { ...record } : undefined;
  }

  async put(record: SessionRecord): Promise<void> {
    const before = this.#records.get(record.id);
    this.#records.set(record.id, { ...record });
    if (before && before.kernelId !== record.kernelId) this.onChange(before.kernelId);
    this.onChange(record.kernelId);
  }

  async delete(id: string): Promise<void> {
    const before = this.#records.get(id);
    this.#records.delete(id);
    if (before) this.onChange(before.kernelId);
  }
}
