import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseUntrustedJson } from '../contents/nbformat/parse-json.js';
import { badRequest, notFound } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { isObject } from '../util/is-object.js';

/** JupyterLab's workspace file extension. */
export const WORKSPACE_EXTENSION = '.jupyterlab-workspace';

/** Workspace names: plain words (never a path), at most 100 characters. */
const WORKSPACE_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

export interface Workspace {
  data: Record<string, unknown>;
  metadata: Record<string, unknown> & { id: string };
}

/** A workspace name as the API takes it; anything else (`/`, `..`, NUL, spaces, ...) is a 400. */
export function checkWorkspaceName(name: string): string {
  if (!WORKSPACE_NAME.test(name) || name === '.' || name === '..') {
    throw badRequest(
      `Invalid workspace name ${JSON.stringify(name).slice(0, 120)}: use letters, digits, _, . and -`,
      'bad name',
    );
  }
  return name;
}

/**
 * jupyterlab_server's file name for a workspace (its `slugify`, for the names allowed here):
 * lower case, only word characters and `-`, then `-` and the first 4 hex digits of the name's
 * SHA-256, so `foo` is stored as `foo-2c26.jupyterlab-workspace` by both servers.
 */
export function workspaceSlug(name: string): string {
  const signature = `-${createHash('sha256').update(name).digest('hex').slice(0, 4)}`;
  const maxLength = 128 - WORKSPACE_EXTENSION.length;
  const value = name
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[-\s]+/g, '-');
  return value.slice(0, maxLength - signature.length) + signature;
}

/**
 * JupyterLab's saved workspaces, stored as jupyterlab_server stores them
 * (https://jupyterlab-server.readthedocs.io/en/latest/api/rest.html): one JSON file per workspace
 * in `dir`, the body of its last PUT verbatim, written atomically.
 */
export class LabWorkspaces {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  #file(name: string): string {
    return path.join(this.#dir, workspaceSlug(checkWorkspaceName(name)) + WORKSPACE_EXTENSION);
  }

  /** Every stored workspace, in file-name order; files that are not workspaces are skipped. */
  async list(): Promise<Workspace[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.#dir);
    } catch {
      return [];
    }
    const result: Workspace[] = [];
    for (const name of names.filter((n) => n.endsWith(WORKSPACE_EXTENSION)).sort()) {
      const workspace = await readWorkspace(path.join(this.#dir, name));
      if (workspace) result.push(workspace);
    }
    return result;
  }

  /** The workspace `name`, or an empty one with its id when none is stored (as jupyterlab_server). */
  async get(name: string): Promise<Workspace> {
    const file = this.#file(name);
    return (await readWorkspace(file)) ?? { data: {}, metadata: { id: `/${name}` } };
  }

  /**
   * Stores `raw`, a workspace whose `metadata.id` names this workspace (`name` or `/name`, maybe
   * percent-encoded, as jupyterlab_server accepts it). A body that is not such a workspace is a 400.
   */
  async save(name: string, raw: string): Promise<void> {
    const file = this.#file(name);
    let parsed: unknown;
    try {
      parsed = parseUntrustedJson(raw);
    } catch (error) {
      throw badRequest(
        `Invalid workspace JSON: ${error instanceof Error ? error.message : String(error)}`,
        'bad format',
      );
    }
    if (!isObject(parsed) || !isObject(parsed.data) || !isObject(parsed.metadata)) {
      throw badRequest('A workspace is an object with `data` and `metadata` objects', 'bad format');
    }
    const id = parsed.metadata.id;
    if (typeof id !== 'string') throw badRequest('The workspace has no `metadata.id`', 'bad format');
    let decoded: string;
    try {
      decoded = decodeURIComponent(id.startsWith('/') ? id : `/${id}`);
    } catch {
      decoded = id;
    }
    if (decoded !== `/${name}`) {
      throw badRequest(
        `Workspace metadata ID mismatch: expected ${JSON.stringify(name)} got ${JSON.stringify(decoded).slice(0, 120)}`,
        'bad value',
      );
    }
    await fs.mkdir(this.#dir, { recursive: true });
    await writeFileAtomic(file, raw, { mode: 0o600 });
  }

  /** Removes the workspace `name`; a 404 when there is none. */
  async delete(name: string): Promise<void> {
    const file = this.#file(name);
    try {
      await fs.unlink(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw notFound(`Workspace ${JSON.stringify(name)} not found`);
      throw error;
    }
  }
}

/** A workspace file with its `created`/`last_modified` from the file's times; `undefined` if unreadable. */
async function readWorkspace(file: string): Promise<Workspace | undefined> {
  try {
    const [text, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    const parsed: unknown = parseUntrustedJson(text);
    if (!isObject(parsed) || !isObject(parsed.metadata) || typeof parsed.metadata.id !== 'string') return undefined;
    const data = isObject(parsed.data) ? parsed.data : {};
    const metadata = {
      ...parsed.metadata,
      id: parsed.metadata.id,
      last_modified: stat.mtime.toISOString(),
      created: stat.ctime.toISOString(),
    };
    return { ...parsed, data, metadata };
  } catch {
    return undefined;
  }
}
