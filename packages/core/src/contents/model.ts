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

export interface CheckpointModel {
  id: string;
  last_modified: string;
}

export const HASH_ALGORITHM = 'sha256';
