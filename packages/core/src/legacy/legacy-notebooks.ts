import type { ContentsManager } from '../contents/manager.js';
import { newNotebook, toNotebookV4 } from '../contents/nbformat/notebook.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { downgradeV4ToV3 } from './downgrade-v3.js';
import { LEGACY_ID_PATTERN, type LegacyNotebookRegistry } from './notebook-registry.js';

type Json = Record<string, unknown>;

export interface LegacyNotebookEntry {
  notebook_id: string;
  /** File stem, as 0.13/1.x clients show it. */
  name: string;
  /** The current API path (`<name>.ipynb`). */
  path: string;
}

export interface LegacyNotebook {
  id: string;
  name: string;
  path: string;
  /** nbformat v3, `metadata.name` = stem. */
  notebook: Json;
  /** The stored v4 notebook (for `?format=py`). */
  v4: Json;
  lastModified: string;
}

export interface LegacyCheckpoint {
  checkpoint_id: string;
  last_modified: string;
}

/**
 * The single-directory notebook store of IPython 0.13/1.x (one flat directory, uuid ids) as a view
 * on the ContentsManager: top-level `*.ipynb` only, addressed by registry ids, served as v3 and
 * written as v4. All writes go through the same manager (same files, checkpoints, validation).
 */
export class LegacyNotebooks {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly contents: ContentsManager,
    private readonly registry: LegacyNotebookRegistry,
  ) {}

  /** Top-level notebooks sorted by name, each with its (persisted) id. */
  async list(): Promise<LegacyNotebookEntry[]> {
    const root = await this.contents.get('', { content: true });
    const paths = (Array.isArray(root.content) ? (root.content as { path: string; type: string }[]) : [])
      .filter((entry) => entry.type === 'notebook' && entry.path.endsWith('.ipynb') && !entry.path.includes('/'))
      .map((entry) => entry.path)
      .sort();
    const ids = await this.registry.sync(paths);
    return paths.map((path) => ({ notebook_id: ids.get(path) as string, name: stem(path), path }));
  }

  /** True when `id` names a notebook that exists (the `/notebooks/<id>` vs page dispatch). */
  async has(id: string): Promise<boolean> {
    const path = LEGACY_ID_PATTERN.test(id) ? await this.registry.pathFor(id) : undefined;
    return path !== undefined && (await this.contents.exists(path));
  }

  /** The path of an id; unknown (or vanished) ids are a 404, as are malformed ones. */
  async pathOf(id: string): Promise<string> {
    const path = LEGACY_ID_PATTERN.test(id) ? await this.registry.pathFor(id) : undefined;
    if (path === undefined || !(await this.contents.exists(path))) {
      if (path !== undefined) await this.registry.removed(path);
      throw notFound(`Notebook does not exist: ${id}`);
    }
    return path;
  }

  /** The id of an existing top-level notebook path (e.g. `/<name>.ipynb` redirects). */
  async idOf(path: string): Promise<string> {
    const isNotebook =
      !path.includes('/') &&
      path.endsWith('.ipynb') &&
      (await this.contents.exists(path)) &&
      (await this.contents.get(path, { content: false })).type === 'notebook';
    if (!isNotebook) throw notFound(`Notebook does not exist: ${path}`);
    return this.registry.idFor(path);
  }

  async get(id: string): Promise<LegacyNotebook> {
    const path = await this.pathOf(id);
    const model = await this.contents.get(path, { type: 'notebook' });
    const v4 = model.content as Json;
    return {
      id,
      name: stem(path),
      path,
      notebook: downgradeV4ToV3(v4, stem(path)),
      v4,
      lastModified: model.last_modified,
    };
  }

  /**
   * POST `/notebooks`: with a body (v3 or v4 JSON) it is saved under `name` (query) or its
   * `metadata.name`; without one an empty `Untitled<N>` is created. Returns the new id.
   */
  async create(body: unknown, name?: string): Promise<LegacyNotebookEntry> {
    return this.serialized(async () => {
      if (body === undefined) {
        const untitled = await this.freeName('Untitled', '');
        return this.write(`${untitled}.ipynb`, newNotebook());
      }
      const notebook = this.parse(body);
      const chosen = name ?? metadataName(body);
      if (chosen === undefined || chosen === '') throw badRequest('Missing notebook name');
      const path = `${validStem(chosen)}.ipynb`;
      if (await this.contents.exists(path)) throw conflict(`Notebook already exists: ${chosen}`);
      return this.write(path, notebook);
    });
  }

  /**
   * PUT `/notebooks/<id>`: saves, renaming first when `name` (query) or `metadata.name` differs.
   * A rename onto an existing notebook is a 409 (upstream silently overwrote it).
   */
  async save(id: string, body: unknown, name?: string): Promise<LegacyNotebookEntry> {
    return this.serialized(async () => {
      let path = await this.pathOf(id);
      const notebook = this.parse(body);
      const wanted = name ?? metadataName(body);
      if (wanted !== undefined && wanted !== '' && wanted !== stem(path)) {
        const target = `${validStem(wanted)}.ipynb`;
        if (await this.contents.exists(target)) throw conflict(`Notebook already exists: ${wanted}`);
        await this.contents.rename(path, target);
        await this.registry.renamed(path, target);
        path = target;
      }
      return this.write(path, notebook);
    });
  }

  /** A file moved through the current API: its id (if it had one) follows it. */
  async renamed(from: string, to: string): Promise<void> {
    await this.registry.renamed(from, to);
  }

  async delete(id: string): Promise<void> {
    const path = await this.pathOf(id);
    await this.contents.delete(path);
    await this.registry.removed(path);
  }

  /** `/<id>/copy`: `<name>-Copy<N>` with N from 0, as 0.13/1.x named copies. */
  async copy(id: string): Promise<LegacyNotebookEntry> {
    return this.serialized(async () => {
      const path = await this.pathOf(id);
      const target = `${await this.freeName(stem(path), '-Copy')}.ipynb`;
      await this.contents.copy(path, target);
      return { notebook_id: await this.registry.idFor(target), name: stem(target), path: target };
    });
  }

  async listCheckpoints(id: string): Promise<LegacyCheckpoint[]> {
    const path = await this.pathOf(id);
    return (await this.contents.listCheckpoints(path)).map(legacyCheckpoint);
  }

  async createCheckpoint(id: string): Promise<LegacyCheckpoint> {
    return legacyCheckpoint(await this.contents.createCheckpoint(await this.pathOf(id)));
  }

  async restoreCheckpoint(id: string, checkpointId: string): Promise<void> {
    await this.contents.restoreCheckpoint(await this.pathOf(id), checkpointId);
  }

  async deleteCheckpoint(id: string, checkpointId: string): Promise<void> {
    await this.contents.deleteCheckpoint(await this.pathOf(id), checkpointId);
  }

  /** v3 or v4 JSON -> v4; anything that does not validate as a notebook is a 400. */
  private parse(body: unknown): Json {
    const parsed = toNotebookV4(body, 'Invalid notebook');
    if (parsed.validationMessage !== null) throw badRequest(parsed.validationMessage, 'bad notebook');
    return parsed.notebook;
  }

  private async write(path: string, notebook: Json): Promise<LegacyNotebookEntry> {
    await this.contents.save(path, { type: 'notebook', format: 'json', content: notebook });
    return { notebook_id: await this.registry.idFor(path), name: stem(path), path };
  }

  private async freeName(base: string, separator: string): Promise<string> {
    for (let n = 0; ; n++) {
      const candidate = `${base}${separator}${n}`;
      if (!(await this.contents.exists(`${candidate}.ipynb`))) return candidate;
    }
  }

  /** Name choice and write happen as one step, so two creates never pick the same name. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }
}

function stem(path: string): string {
  return path.slice(0, -'.ipynb'.length);
}

function metadataName(body: unknown): string | undefined {
  const metadata = (body as { metadata?: unknown } | null)?.metadata;
  const name = (metadata as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

/** A notebook name from a client: one visible path segment, no `.ipynb` repeated. */
function validStem(name: string): string {
  const trimmed = name.endsWith('.ipynb') ? name.slice(0, -'.ipynb'.length) : name;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused in names
  if (trimmed === '' || trimmed.length > 250 || /[/\\\u0000-\u001f]/.test(trimmed) || trimmed.startsWith('.')) {
    throw badRequest(`Invalid notebook name: ${JSON.stringify(name)}`, 'bad name');
  }
  return trimmed;
}

/** 1.x shape; timestamps with `+00:00` as IPython 1.x wrote them. */
function legacyCheckpoint(model: { id: string; last_modified: string }): LegacyCheckpoint {
  return { checkpoint_id: model.id, last_modified: model.last_modified.replace(/Z$/, '+00:00') };
}
