import { createHmac, randomBytes } from 'node:crypto';
import { isObject } from '../util/is-object.js';
import { MemorySignatureStore, type SignatureStore } from './signature-stores.js';

type Json = Record<string, unknown>;

/**
 * Notebook trust, as Jupyter's `NotebookNotary`: a notebook whose outputs the user produced (or
 * explicitly trusted) is signed with a server secret when saved; when it is read back with a known
 * signature its code cells are marked `metadata.trusted`, so frontends run its HTML/JavaScript
 * outputs. Anything else (a notebook from elsewhere, edited on disk) stays untrusted until re-run.
 *
 * The signature is an HMAC-SHA256 of the stored bytes; only signatures are kept, never content.
 */
export class NotebookNotary {
  readonly #loadSecret: () => Promise<Uint8Array>;
  #secret: Promise<Uint8Array> | undefined;
  readonly #signatures: SignatureStore;

  /**
   * `secret` may be a loader (e.g. `loadOrCreateSecret(file)`), called on first use; the default
   * is a random per-process secret, so trust then lasts as long as the process.
   */
  constructor(options: { secret?: Uint8Array | (() => Promise<Uint8Array>); signatures?: SignatureStore } = {}) {
    const secret = options.secret ?? randomBytes(32);
    this.#loadSecret = typeof secret === 'function' ? secret : async () => secret;
    this.#signatures = options.signatures ?? new MemorySignatureStore();
  }

  async sign(bytes: Uint8Array): Promise<void> {
    await this.#signatures.add(await this.#digest(bytes));
  }

  async isSigned(bytes: Uint8Array): Promise<boolean> {
    return this.#signatures.has(await this.#digest(bytes));
  }

  async #digest(bytes: Uint8Array): Promise<string> {
    this.#secret ??= this.#loadSecret().catch((error: unknown) => {
      this.#secret = undefined; // retry on the next use (e.g. the data dir became writable)
      throw error;
    });
    return createHmac('sha256', await this.#secret)
      .update(bytes)
      .digest('hex');
  }
}

/**
 * nbformat's `check_cells`: a notebook may be signed on save when every code cell is trusted by
 * the client (`metadata.trusted`) or shows nothing that could run code (no rich outputs).
 */
export function allCellsTrusted(nb: Json): boolean {
  if (!Array.isArray(nb.cells)) return false;
  return nb.cells.every((cell: unknown) => {
    if (!isObject(cell) || cell.cell_type !== 'code') return true;
    if (isObject(cell.metadata) && cell.metadata.trusted === true) return true;
    const outputs = Array.isArray(cell.outputs) ? cell.outputs : [];
    return outputs.every((o: unknown) => !isObject(o) || !outputNeedsTrust(o.output_type));
  });
}

/** nbformat's unsafe output types: rich data (HTML, JavaScript, widget views) shown only when trusted. */
export function outputNeedsTrust(outputType: unknown): boolean {
  return outputType === 'execute_result' || outputType === 'display_data';
}

/** nbformat's `mark_cells`: every code cell gets `metadata.trusted` (copies only the code cells). */
export function markCells(nb: Json, trusted: boolean): Json {
  if (!Array.isArray(nb.cells)) return nb;
  return {
    ...nb,
    cells: nb.cells.map((cell: unknown) =>
      isObject(cell) && cell.cell_type === 'code'
        ? { ...cell, metadata: { ...(isObject(cell.metadata) ? cell.metadata : {}), trusted } }
        : cell,
    ),
  };
}
