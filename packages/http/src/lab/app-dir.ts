import { promises as fs, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isObject } from '@nbserve/core';

/** A built JupyterLab app directory (`@nbserve/jupyterlab`'s `dist/`), as the server reads it. */
export interface LabApp {
  dir: string;
  /** JupyterLab's version, from `build.json`. */
  version: string;
  /** Plugins and packages the build turns off (no server for them here), from `build.json`. */
  disabledExtensions: readonly string[];
  /** `index.html` with its `{{page_config}}`, `{{base_url}}` and `{{static_url}}` placeholders. */
  template: string;
  staticDir: string;
  schemasDir: string;
  themesDir: string;
  /** Where jupyterlab_server looks for `overrides.json` (`<app dir>/settings`). */
  settingsDir: string;
}

/**
 * Where a build may be when no `labAppDir` is given: `lab/` beside the running CLI bundle (the
 * published package ships it there), then `@nbserve/jupyterlab`'s `dist/` in this workspace.
 */
export function defaultLabAppDirs(): string[] {
  const dirs: string[] = [];
  const script = process.argv[1];
  if (script) {
    // npx and npm install the command as a symlink in node_modules/.bin: look beside its target
    let resolved = path.resolve(script);
    try {
      resolved = realpathSync(resolved);
    } catch {
      // not a file (node -e): the path as given
    }
    dirs.push(path.join(path.dirname(resolved), 'lab'));
  }
  try {
    const pkg = createRequire(import.meta.url).resolve('@nbserve/jupyterlab/package.json');
    dirs.push(path.join(path.dirname(pkg), 'dist'));
  } catch {
    // not installed beside us: try the workspace layout (packages/http/{src,dist}/lab -> packages/jupyterlab)
  }
  dirs.push(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'jupyterlab', 'dist'));
  return [...new Set(dirs)];
}

/**
 * Finds and reads the first of `dirs` holding a `build.json`, again whenever that file changes (a
 * rebuild while the server runs); `null` while there is none.
 */
export class LabAppLocator {
  readonly #dirs: readonly string[];
  #cached: { dir: string; mtimeMs: number; app: LabApp } | undefined;

  constructor(dirs: readonly string[]) {
    this.#dirs = dirs;
  }

  async get(): Promise<LabApp | null> {
    for (const dir of this.#dirs) {
      let mtimeMs: number;
      try {
        mtimeMs = (await fs.stat(path.join(dir, 'build.json'))).mtimeMs;
      } catch {
        continue;
      }
      const cached = this.#cached;
      if (cached && cached.dir === dir && cached.mtimeMs === mtimeMs) return cached.app;
      const app = await readLabApp(dir);
      if (!app) continue;
      this.#cached = { dir, mtimeMs, app };
      return app;
    }
    return null;
  }
}

async function readLabApp(dir: string): Promise<LabApp | null> {
  try {
    const [buildText, template] = await Promise.all([
      fs.readFile(path.join(dir, 'build.json'), 'utf8'),
      fs.readFile(path.join(dir, 'index.html'), 'utf8'),
    ]);
    const build: unknown = JSON.parse(buildText);
    if (!isObject(build)) return null;
    const disabled = Array.isArray(build.disabledExtensions) ? build.disabledExtensions : [];
    return {
      dir,
      version: typeof build.version === 'string' ? build.version : '',
      disabledExtensions: disabled.filter((id): id is string => typeof id === 'string'),
      template,
      staticDir: path.join(dir, 'static'),
      schemasDir: path.join(dir, 'schemas'),
      themesDir: path.join(dir, 'themes'),
      settingsDir: path.join(dir, 'settings'),
    };
  } catch {
    return null;
  }
}
