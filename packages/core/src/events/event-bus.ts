/** An event as jupyter_server's event bus sends it to subscribers: its schema id and its fields. */
export type ServerEvent = { schema_id: string } & Record<string, unknown>;

/** The schema of jupyter_server's contents events (https://jupyter-server.readthedocs.io/en/latest/operators/configuring-logging.html). */
export const CONTENTS_EVENT_SCHEMA = 'https://events.jupyter.org/jupyter_server/contents_service/v1';

/** What a contents event says happened, as jupyter_server's contents handlers emit them. */
export type ContentsAction = 'get' | 'create' | 'save' | 'upload' | 'rename' | 'copy' | 'delete';

/**
 * The server's event bus (jupyter_server's `EventLogger`, for its WebSocket subscribers): events
 * go to every listener; one that throws breaks no other.
 */
export class EventBus {
  readonly #listeners = new Set<(event: ServerEvent) => void>();

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  emit(schemaId: string, data: Record<string, unknown>): void {
    if (this.#listeners.size === 0) return;
    const event: ServerEvent = { ...data, schema_id: schemaId };
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // one subscriber's failure is not the emitter's
      }
    }
  }

  /** A contents event: `{action, path}` and `source_path` for renames and copies. */
  emitContents(action: ContentsAction, path: string, sourcePath?: string): void {
    this.emit(
      CONTENTS_EVENT_SCHEMA,
      sourcePath === undefined ? { action, path } : { action, path, source_path: sourcePath },
    );
  }
}
