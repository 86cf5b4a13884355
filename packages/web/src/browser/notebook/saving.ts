import { ApiError, api, type ContentsModel, contentsRoute, xsrfToken } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { showDialog } from '../lib/dialog.js';
import { h } from '../lib/dom.js';

export interface Checkpoint {
  id: string;
  last_modified: string;
}

/** Browsers refuse `keepalive` request bodies above 64 KiB (all such requests of a page together). */
const KEEPALIVE_MAX_BYTES = 60_000;

export type ConflictChoice = 'overwrite' | 'reload' | 'cancel';

/** The server refused a save because the file changed since this page last saw it. */
export class SaveConflict extends Error {}

/**
 * Saving with a server-side conflict check: every save carries `If-Match` with the hash of the
 * version this page last loaded or wrote, so the server itself refuses (409) to overwrite a file
 * changed on disk or from another tab; the page then asks the user what to do.
 */
export class Saver {
  private known: { hash: string | null; lastModified: string } | undefined;

  constructor(public path: string) {}

  remember(model: Pick<ContentsModel, 'last_modified'> & { hash?: string | null }): void {
    this.known = { hash: model.hash ?? this.known?.hash ?? null, lastModified: model.last_modified };
  }

  /** The hash of the stored file as this page last read or wrote it. */
  get hash(): string | null {
    return this.known?.hash ?? null;
  }

  get lastModified(): string | undefined {
    return this.known?.lastModified;
  }

  /** Learns the stored file's hash (after load), for the next save's precondition. */
  async refresh(): Promise<void> {
    const model = await api<ContentsModel>(contentsRoute(this.path), { query: { content: '0', hash: '1' } });
    this.known = { hash: model.hash ?? null, lastModified: model.last_modified };
  }

  async askConflict(): Promise<ConflictChoice> {
    return showDialog<ConflictChoice>({
      title: 'Notebook changed on disk',
      body: h(
        'p',
        {},
        'The notebook file has changed since it was last read or saved here (on disk or in another tab). Overwrite it with this version, or reload the version on disk (your changes here are lost)?',
      ),
      cancel: 'cancel',
      buttons: [
        { label: 'Cancel', value: 'cancel' },
        { label: 'Reload', value: 'reload' },
        { label: 'Overwrite', value: 'overwrite', primary: true, danger: true },
      ],
    });
  }

  /** Writes the notebook; without `force`, only if the stored file is still the one we know. */
  async write(content: Record<string, unknown>, force = false): Promise<ContentsModel> {
    const headers: Record<string, string> = {};
    if (!force && this.known?.hash) headers['If-Match'] = `"${this.known.hash}"`;
    let model: ContentsModel;
    try {
      model = await api<ContentsModel>(contentsRoute(this.path), {
        method: 'PUT',
        body: { type: 'notebook', format: 'json', content },
        headers,
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) throw new SaveConflict(error.message);
      throw error;
    }
    this.remember(model);
    if (!model.hash) await this.refresh().catch(() => undefined);
    return model;
  }

  /**
   * A last save while the page is being closed: sent with `keepalive` so it outlives the page,
   * and only with `If-Match`, so the server refuses it (409) if the file changed meanwhile — it
   * never overwrites a newer file. Nobody sees the answer. Returns whether it was sent (not for a
   * file whose hash is unknown, nor for a notebook above the browsers' keepalive body limit).
   */
  writeOnUnload(content: Record<string, unknown>): boolean {
    const hash = this.known?.hash;
    if (!hash) return false;
    const body = JSON.stringify({ type: 'notebook', format: 'json', content });
    if (new TextEncoder().encode(body).length > KEEPALIVE_MAX_BYTES) return false;
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'Content-Type': 'application/json',
      'If-Match': `"${hash}"`,
    };
    const xsrf = xsrfToken();
    if (xsrf) headers['X-XSRFToken'] = xsrf;
    try {
      void fetch(`${pageConfig().baseUrl}${contentsRoute(this.path)}`, {
        method: 'PUT',
        headers,
        body,
        credentials: 'same-origin',
        keepalive: true,
      }).catch(() => undefined);
    } catch {
      return false;
    }
    return true;
  }

  createCheckpoint(): Promise<Checkpoint> {
    return api<Checkpoint>(`${contentsRoute(this.path)}/checkpoints`, { method: 'POST' });
  }

  listCheckpoints(): Promise<Checkpoint[]> {
    return api<Checkpoint[]>(`${contentsRoute(this.path)}/checkpoints`);
  }

  async restoreCheckpoint(id: string): Promise<void> {
    await api(`${contentsRoute(this.path)}/checkpoints/${encodeURIComponent(id)}`, { method: 'POST' });
  }
}
