/**
 * The Jupyter contents model and its parts, shared by the manager and its callers; its fields are
 * those of jupyter_server's REST API: https://jupyter-server.readthedocs.io/en/latest/developers/rest-api.html
 */
export type ContentType = 'directory' | 'notebook' | 'file';
export type ContentFormat = 'json' | 'text' | 'base64';

export interface ContentsModel {
  name: string;
  path: string;
  type: ContentType;
  writable: boolean;
  created: string;
  last_modified: string;
  size: number | null;
  mimetype: string | null;
  content: unknown;
  format: ContentFormat | null;
  hash: string | null;
  hash_algorithm: string | null;
  /** Only present when nbformat validation of a notebook failed on save or read. */
  message?: string;
  /** Only present for a directory listed page by page: how many entries there are in all. */
  total?: number;
}

export interface GetOptions {
  /** Force the interpretation (`type=file` on a notebook returns its raw text). */
  type?: ContentType;
  format?: 'text' | 'base64';
  /** Default true. */
  content?: boolean;
  /** Add `hash`/`hash_algorithm` (sha256 of the stored bytes). Default false. */
  hash?: boolean;
  /**
   * Directories only, an nbserve extension: return the sorted listing from `offset`, at most
   * `limit` entries, and the full count in `total`. Without it the model is exactly Jupyter's.
   */
  page?: { offset: number; limit: number };
}

/** A model and its JSON as UTF-8 (see `ContentsManager.getSerialized`). */
export interface SerializedModel {
  /** The model; for a notebook its `content` is `null` (it is only in `json`). */
  model: ContentsModel;
  /**
   * Exactly the UTF-8 bytes of `JSON.stringify` of the full model; a stream of them for a big
   * directory's listing (its entries are stat'ed as it is read; one gone meanwhile is left out).
   */
  json: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>;
  /**
   * Set when `json` is in memory lent for this answer: call it once `json` is written out (or
   * will never be), and not before; not calling it only costs the reuse of that memory.
   */
  release?: () => void;
}

/** A PUT body as the client sent it; the manager checks it with Jupyter's messages. */
export interface SaveInput {
  type?: string | undefined;
  format?: string | null | undefined;
  content?: unknown;
  /** Chunked upload: 1 = first chunk (truncate), 2.. = append, -1 = last chunk. */
  chunk?: number | undefined;
  /** The path the body names (clients echo models back): a hidden one is refused, as in jupyter_server. */
  path?: string | null | undefined;
}

export interface SaveResult {
  model: ContentsModel;
  /**
   * True unless a file existed at the path before: PUT answers 201 instead of 200. As in
   * jupyter_server, a directory PUT onto an existing directory also counts as created.
   */
  created: boolean;
}

export interface OpenedFile {
  name: string;
  path: string;
  size: number;
  lastModifiedMs: number;
  mimetype: string | null;
  stream: ReadableStream<Uint8Array>;
}

export interface CheckpointModel {
  id: string;
  last_modified: string;
}

export const HASH_ALGORITHM = 'sha256';
