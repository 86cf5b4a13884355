import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { checkJsonDepth } from '../contents/nbformat/parse-json.js';
import { badRequest, internalError, notFound } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { isObject } from '../util/is-object.js';
import { loadAjv, loadJson5 } from './lazy-parsers.js';
import { mergeObjects, readOverrides } from './overrides.js';

/** JupyterLab's user settings file extension. */
export const SETTINGS_EXTENSION = '.jupyterlab-settings';

/**
 * A plugin id, `<package>:<plugin>` (`@jupyterlab/apputils-extension:themes`): an npm package name
 * and a plain plugin name, so an id can never name a path outside the settings folders.
 */
const PLUGIN_ID = /^((?:@[a-z0-9~][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*):([A-Za-z0-9_][A-Za-z0-9_.-]*)$/i;

/** One plugin's settings, in jupyterlab_server's shape (`GET /lab/api/settings/<id>`). */
export interface PluginSettings {
  id: string;
  schema: Record<string, unknown>;
  version: string;
  raw: string;
  settings: Record<string, unknown>;
  last_modified: string | null;
  created: string | null;
}

export interface LabSettingsOptions {
  /** The app's schemas, `<app dir>/schemas/<package>/<plugin>.json`. */
  schemasDir: string;
  /** Where user settings are written: `<dir>/<package>/<plugin>.jupyterlab-settings`. */
  userSettingsDir: string;
  /** Folders whose `overrides.json(5)` and `overrides.d/` change schema defaults, later ones winning. */
  overridesDirs: readonly string[];
  /** Prebuilt extensions' schema folders by package name (`<extension dir>/schemas`); they win over `schemasDir`. */
  extensionSchemas?: () => Promise<ReadonlyMap<string, string>>;
  /** Called with warnings (a stored file that no longer validates, a broken overrides file). */
  warn?: (message: string) => void;
}

interface LoadedSchema {
  schema: Record<string, unknown>;
  version: string;
  /** Compiled on first use: compiling all of JupyterLab's schemas takes seconds, and listing needs none. */
  validator(): Promise<ValidateFunction>;
}

/**
 * JupyterLab's settings store as jupyterlab_server keeps it
 * (https://jupyterlab-server.readthedocs.io/en/latest/api/rest.html): plugin schemas from the built
 * app and prebuilt extensions, defaults changed by `overrides.json`, and the user's raw JSON5 per
 * plugin, validated against its schema and kept verbatim (comments included).
 */
export class LabSettings {
  readonly #options: LabSettingsOptions;
  readonly #compiled = new Map<string, { key: string; validate: ValidateFunction }>();

  constructor(options: LabSettingsOptions) {
    this.#options = options;
  }

  /** Every plugin, sorted by id descending as jupyterlab_server lists them; only `{id}`s with `idsOnly`. */
  async list(idsOnly = false): Promise<Array<PluginSettings | { id: string }>> {
    const ids = new Set<string>();
    for (const file of await listJsonFiles(this.#options.schemasDir)) ids.add(idOf(file));
    for (const dir of (await this.#extensionSchemas()).values()) {
      for (const file of await listJsonFiles(dir)) ids.add(idOf(file));
    }
    const sorted = [...ids].filter((id) => PLUGIN_ID.test(id)).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    if (idsOnly) return sorted.map((id) => ({ id }));
    const overrides = await this.#overrides();
    const result: PluginSettings[] = [];
    for (const id of sorted) result.push(await this.#get(id, overrides));
    return result;
  }

  /** One plugin's schema, version and user settings; an unknown id is a 404. */
  async get(id: string): Promise<PluginSettings> {
    return this.#get(id, await this.#overrides());
  }

  /**
   * Stores `raw` (JSON5) for plugin `id` after validating it against the plugin's schema; the file
   * is replaced atomically, so concurrent saves leave one of them whole. Bad JSON5 or settings
   * that break the schema are a 400 naming the problem, the stored file untouched.
   */
  async save(id: string, raw: string): Promise<void> {
    const loaded = await this.#schema(id, await this.#overrides());
    let parsed: unknown;
    try {
      parsed = (await loadJson5()).parse(raw);
      checkJsonDepth(parsed); // deeper would fail every later answer that serializes it
    } catch (error) {
      const detail = error instanceof RangeError ? 'too deeply nested' : errorMessage(error);
      throw badRequest(`Failed parsing JSON5 settings for ${id}: ${detail}`, 'bad format');
    }
    const validate = await loaded.validator();
    if (!validate(parsed)) {
      const problems = (await loadAjv()).errorsText(validate.errors, { dataVar: 'settings' });
      throw badRequest(`Failed validating settings for ${id}: ${problems}`, 'bad value');
    }
    const file = this.#userFile(id);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await writeFileAtomic(file, raw, { mode: 0o644 });
  }

  async #get(id: string, overrides: Record<string, Record<string, unknown>>): Promise<PluginSettings> {
    const { schema, version, validator } = await this.#schema(id, overrides);
    const file = this.#userFile(id);
    let raw = '{}';
    let settings: Record<string, unknown> = {};
    let times: { last_modified: string | null; created: string | null } = { last_modified: null, created: null };
    try {
      const [text, stat] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
      times = { last_modified: stat.mtime.toISOString(), created: stat.ctime.toISOString() };
      raw = text || raw;
      const parsed: unknown = (await loadJson5()).parse(raw);
      checkJsonDepth(parsed);
      if (isObject(parsed) && (Object.keys(parsed).length === 0 || (await validator())(parsed))) settings = parsed;
      else {
        // jupyterlab_server: settings that no longer fit their schema are ignored, with a warning
        this.#options.warn?.(`Ignoring settings of ${id} that do not validate against its schema`);
        raw = '{}';
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#options.warn?.(`Ignoring settings of ${id} that cannot be read: ${errorMessage(error)}`);
        raw = '{}';
      }
    }
    return { id, schema, version, raw, settings, ...times };
  }

  async #schema(id: string, overrides: Record<string, Record<string, unknown>>): Promise<LoadedSchema> {
    const match = PLUGIN_ID.exec(id);
    if (!match) throw notFound(`Schema not found: ${JSON.stringify(id).slice(0, 200)}`);
    const [, pkg = '', plugin = ''] = match;
    const extensionDir = (await this.#extensionSchemas()).get(pkg);
    const dirs = extensionDir ? [extensionDir, this.#options.schemasDir] : [this.#options.schemasDir];
    for (const dir of dirs) {
      const file = path.join(dir, pkg, `${plugin}.json`);
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch {
        continue;
      }
      let schema: unknown;
      try {
        schema = JSON.parse(text);
      } catch (error) {
        throw internalError(`Failed parsing schema (${id}): ${errorMessage(error)}`);
      }
      if (!isObject(schema)) throw internalError(`Failed parsing schema (${id}): not an object`);
      const overridden = applyOverrides(schema, overrides[id]);
      const version = await packageVersion(dir, pkg);
      return { schema: overridden, version, validator: () => this.#validator(id, overridden) };
    }
    throw notFound(`Schema not found: ${id}`);
  }

  async #validator(id: string, schema: Record<string, unknown>): Promise<ValidateFunction> {
    const key = JSON.stringify(schema);
    const cached = this.#compiled.get(id);
    if (cached?.key === key) return cached.validate;
    let validate: ValidateFunction;
    try {
      validate = (await loadAjv()).compile(schema);
    } catch (error) {
      throw internalError(`Failed validating schema (${id}): ${errorMessage(error)}`);
    }
    this.#compiled.set(id, { key, validate });
    return validate;
  }

  #userFile(id: string): string {
    const [pkg, plugin] = id.split(':') as [string, string];
    return path.join(this.#options.userSettingsDir, pkg, `${plugin}${SETTINGS_EXTENSION}`);
  }

  async #extensionSchemas(): Promise<ReadonlyMap<string, string>> {
    return (await this.#options.extensionSchemas?.()) ?? new Map();
  }

  #overrides(): Promise<Record<string, Record<string, unknown>>> {
    return readOverrides(this.#options.overridesDirs, this.#options.warn);
  }
}

/**
 * jupyterlab_server's `_override`: an override replaces a property's default, merging into it when
 * the default is an object; a key the schema lacks becomes a property with that default.
 */
function applyOverrides(schema: Record<string, unknown>, overrides: Record<string, unknown> | undefined) {
  if (!overrides) return schema;
  const properties = isObject(schema.properties) ? { ...schema.properties } : {};
  for (const [key, value] of Object.entries(overrides)) {
    const property = properties[key];
    if (isObject(property)) {
      const current = property.default;
      const merged = isObject(current) && isObject(value) ? mergeObjects(current, value) : value;
      properties[key] = { ...property, default: merged };
    } else {
      properties[key] = { default: value };
    }
  }
  return { ...schema, properties };
}

/** The version in `<dir>/<package>/package.json.orig`, as jupyterlab_server reads it; else `N/A`. */
async function packageVersion(dir: string, pkg: string): Promise<string> {
  try {
    const parsed: unknown = JSON.parse(await fs.readFile(path.join(dir, pkg, 'package.json.orig'), 'utf8'));
    return isObject(parsed) && typeof parsed.version === 'string' ? parsed.version : 'N/A';
  } catch {
    return 'N/A';
  }
}

/** `<package>/<plugin>.json` files below `dir` (relative, `/`-separated), none when it is missing. */
async function listJsonFiles(dir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await fs.readdir(dir, { recursive: true });
  } catch {
    return [];
  }
  return entries.filter((entry) => entry.endsWith('.json')).map((entry) => entry.split(path.sep).join('/'));
}

function idOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return `${file.slice(0, slash)}:${file.slice(slash + 1, -'.json'.length)}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
