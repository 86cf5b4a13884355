/** An event as jupyter_server's event bus sends it to subscribers: its schema id and its fields. */
export type ServerEvent = { schema_id: string } & Record<string, unknown>;

/** The schema of jupyter_server's contents events (https://jupyter-server.readthedocs.io/en/latest/operators/configuring-logging.html). */
export const CONTENTS_EVENT_SCHEMA = 'https://events.jupyter.org/jupyter_server/contents_service/v1';

/** What a contents event says happened, as jupyter_server's contents handlers emit them. */
export type ContentsAction = 'get' | 'create' | 'save' | 'upload' | 'rename' | 'copy' | 'delete';

/** What a contents event does not say on the wire but an in-process listener (the audit log) needs. */
export interface ContentsDetail {
  /** The model's type and size after the change (create, save, upload, copy). */
  type?: string;
  size?: number | null;
  /** How a PUT sent the content: its format and chunk number. */
  format?: string | null;
  chunk?: number;
}

/** A contents event as in-process listeners get it: the event's fields and its detail. */
export interface ContentsChange extends ContentsDetail {
  action: ContentsAction;
  path: string;
  /** Where a rename or a copy came from. */
  sourcePath?: string;
}

/**
 * The server's event bus (jupyter_server's `EventLogger`, for its WebSocket subscribers): events
 * go to every listener; one that throws breaks no other. Contents events also go, with their
 * detail, to the in-process listeners of `onContents`: they are the one record of what changed.
 */
export class EventBus {
  readonly #listeners = new Set<(event: ServerEvent) => void>();
  readonly #contentsListeners = new Set<(change: ContentsChange) => void>();

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Adds an in-process listener of contents events and their detail; returns the function that removes it. */
  onContents(listener: (change: ContentsChange) => void): () => void {
    this.#contentsListeners.add(listener);
    return () => this.#contentsListeners.delete(listener);
  }

  /** Subscribers of `subscribe` (the WebSockets), not those of `onContents`. */
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

  /** A contents event: `{action, path}` and `source_path` for renames and copies; `detail` stays in process. */
  emitContents(action: ContentsAction, path: string, sourcePath?: string, detail: ContentsDetail = {}): void {
    if (this.#contentsListeners.size > 0) {
      const change: ContentsChange = { ...detail, action, path, ...(sourcePath === undefined ? {} : { sourcePath }) };
      for (const listener of this.#contentsListeners) {
        try {
          listener(change);
        } catch {
          // one listener's failure is not the emitter's
        }
      }
    }
    this.emit(
      CONTENTS_EVENT_SCHEMA,
      sourcePath === undefined ? { action, path } : { action, path, source_path: sourcePath },
    );
  }
}
