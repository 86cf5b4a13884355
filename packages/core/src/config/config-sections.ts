import { promises as fs } from 'node:fs';
import path from 'node:path';
import { badRequest, internalError } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { isObject } from '../util/is-object.js';

export type JsonObject = { [key: string]: unknown };

/** Section names are plain words (Jupyter's `\w+`, plus `-` and `.` inside): never a path. */
const SECTION_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,126}[A-Za-z0-9_])?$/;

/**
 * Jupyter's `recursive_update`: objects merge key by key, `null` deletes a key, anything else
 * replaces; an object left empty by the merge is removed (so `{"a": {"b": null}}` drops `a` when
 * `b` was its only key). Where Jupyter fails (an object merged into a non-object), the object
 * replaces it. Returns a new object; neither input is changed.
 */
export function recursiveUpdate(target: JsonObject, update: JsonObject): JsonObject {
  const result: JsonObject = { ...target };
  for (const [key, value] of Object.entries(update)) {
    if (value === null) {
      delete result[key];
    } else if (isObject(value)) {
      const current = result[key];
      const merged = recursiveUpdate(isObject(current) ? current : {}, value);
      if (Object.keys(merged).length === 0) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = value;
    }
  }
  return result;
}

/**
 * The frontend settings store of the classic Notebook (`/api/config/<section>`): one JSON object
 * per section in `<configDir>/nbconfig/<section>.json`, written atomically, updates serialized.
 */
export class ConfigSections {
  private readonly dir: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(configDir: string) {
    this.dir = path.join(configDir, 'nbconfig');
  }

  private file(section: string): string {
    if (!SECTION_NAME.test(section) || section.includes('..')) {
      throw badRequest(`Invalid config section name: ${JSON.stringify(section).slice(0, 80)}`, 'bad name');
    }
    return path.join(this.dir, `${section}.json`);
  }

  async get(section: string): Promise<JsonObject> {
    const file = this.file(section);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw internalError(`Could not read config section ${section}`, { cause: error });
    }
    try {
      const parsed: unknown = JSON.parse(text);
      return isObject(parsed) ? parsed : {};
    } catch {
      // A hand-broken file reads as empty rather than locking the frontend out of its settings.
      return {};
    }
  }

  /** Replaces the whole section. */
  set(section: string, value: JsonObject): Promise<void> {
    const file = this.file(section);
    return this.serialized(() => this.write(file, value));
  }

  /** Merges `update` into the section and returns the merged result. */
  update(section: string, update: JsonObject): Promise<JsonObject> {
    const file = this.file(section);
    return this.serialized(async () => {
      const merged = recursiveUpdate(await this.get(section), update);
      await this.write(file, merged);
      return merged;
    });
  }

  private serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(file: string, value: JsonObject): Promise<void> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
  }
}
