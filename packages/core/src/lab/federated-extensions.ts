import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isObject } from '../util/is-object.js';

/** A prebuilt extension as the page config lists it (`federated_extensions`). */
export interface FederatedExtensionEntry {
  name: string;
  load: string;
  extension?: string;
  mimeExtension?: string;
  style?: string;
}

/** A prebuilt (federated) JupyterLab extension found in a `labextensions` folder. */
export interface FederatedExtension {
  name: string;
  version: string;
  /** The extension's folder (`<labextensions>/<name>`), whose files are served. */
  dir: string;
  /** `package.json` `jupyterlab.disabledExtensions`: plugins this extension turns off. */
  disables: readonly string[];
  /** What the page config lists; `undefined` for a package without `jupyterlab._build`. */
  entry: FederatedExtensionEntry | undefined;
}

/** npm package names only: a name read from disk becomes a URL segment and a path. */
const PACKAGE_NAME = /^(?:@[a-z0-9~][a-z0-9._~-]*\/)?[a-z0-9~][a-z0-9._~-]*$/;

/**
 * Prebuilt extensions as jupyterlab_server finds them: `<dir>/<name>/package.json` and
 * `<dir>/@<scope>/<name>/package.json` in each folder of `dirs` in order, the first folder holding
 * a name winning (https://jupyterlab.readthedocs.io/en/stable/user/extensions.html#prebuilt-extensions).
 */
export async function findFederatedExtensions(dirs: readonly string[]): Promise<FederatedExtension[]> {
  const found = new Map<string, FederatedExtension>();
  for (const dir of dirs) {
    for (const candidate of await candidateDirs(dir)) {
      const extension = await readExtension(candidate);
      if (extension && !found.has(extension.name)) found.set(extension.name, extension);
    }
  }
  return [...found.values()];
}

async function candidateDirs(dir: string): Promise<string[]> {
  const result: string[] = [];
  for (const name of await readdirSafe(dir)) {
    if (name.startsWith('@')) {
      for (const inner of await readdirSafe(path.join(dir, name))) result.push(path.join(dir, name, inner));
    } else {
      result.push(path.join(dir, name));
    }
  }
  return result.sort();
}

async function readdirSafe(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    return [];
  }
}

async function readExtension(dir: string): Promise<FederatedExtension | undefined> {
  let pkg: unknown;
  try {
    pkg = JSON.parse(await fs.readFile(path.join(dir, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(pkg) || typeof pkg.name !== 'string' || !PACKAGE_NAME.test(pkg.name)) return undefined;
  const lab = isObject(pkg.jupyterlab) ? pkg.jupyterlab : {};
  const disabled = Array.isArray(lab.disabledExtensions) ? lab.disabledExtensions : [];
  return {
    name: pkg.name,
    version: typeof pkg.version === 'string' ? pkg.version : '',
    dir,
    disables: disabled.filter((id): id is string => typeof id === 'string'),
    entry: buildEntry(pkg.name, lab._build),
  };
}

function buildEntry(name: string, build: unknown): FederatedExtensionEntry | undefined {
  if (!isObject(build) || typeof build.load !== 'string') return undefined;
  const entry: FederatedExtensionEntry = { name, load: build.load };
  for (const key of ['extension', 'mimeExtension', 'style'] as const) {
    const value = build[key];
    if (typeof value === 'string') entry[key] = value;
  }
  return entry;
}
