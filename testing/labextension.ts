/**
 * The prebuilt (federated) JupyterLab extension the tests install: testing/fixtures/labextension,
 * built with @jupyter/builder's extension build (what `jupyter labextension build` runs) against
 * packages/jupyterlab's package.json as the core package file, so it consumes JupyterLab's
 * singletons instead of bundling them. Built on first use and again only when its inputs change.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = path.join(REPO, 'testing', 'fixtures', 'labextension');
const CORE_PACKAGE = path.join(REPO, 'packages', 'jupyterlab', 'package.json');
/** The built extension: its package.json (with `jupyterlab._build`) and static/. */
export const TEST_LABEXTENSION_DIR = path.join(SOURCE, 'dist');
export const TEST_LABEXTENSION_NAME = '@nbserve-test/marker-extension';
const HASH_FILE = path.join(TEST_LABEXTENSION_DIR, '.inputs-hash');

type RspackConfig = Record<string, unknown>;
type Rspack = (configs: RspackConfig[], done: (error: Error | null, stats?: MultiStats) => void) => void;
interface MultiStats {
  hasErrors(): boolean;
  toString(options: unknown): string;
}

async function inputsHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'index.js', 'style.css']) hash.update(await fs.readFile(path.join(SOURCE, file)));
  hash.update(await fs.readFile(CORE_PACKAGE));
  return hash.digest('hex');
}

/** Builds the extension unless an up-to-date build is there; returns its directory. */
export async function buildTestLabextension(): Promise<string> {
  const hash = await inputsHash();
  const built = await fs.readFile(HASH_FILE, 'utf8').catch(() => '');
  if (built === hash) return TEST_LABEXTENSION_DIR;
  // @jupyter/builder and rspack are packages/jupyterlab's build tools.
  const require = createRequire(CORE_PACKAGE);
  const generateConfig = require('@jupyter/builder/lib/extensionConfig').default as (
    options: unknown,
  ) => RspackConfig[];
  const rspack = require('@rspack/core').rspack as Rspack;
  // The builder's rules name loaders (style-loader, css-loader) it depends on itself; pnpm links
  // them beside it only.
  const builderDir = await fs.realpath(path.dirname(require.resolve('@jupyter/builder/package.json')));
  const configs = generateConfig({ packagePath: SOURCE, corePackageFile: CORE_PACKAGE, mode: 'production' }).map(
    (config) => ({ ...config, resolveLoader: { modules: [path.resolve(builderDir, '../..'), 'node_modules'] } }),
  );
  await new Promise<void>((resolve, reject) => {
    rspack(configs, (error, stats) => {
      if (error) reject(error);
      else if (stats?.hasErrors()) reject(new Error(stats.toString({ all: false, errors: true })));
      else resolve();
    });
  });
  await fs.writeFile(HASH_FILE, hash);
  return TEST_LABEXTENSION_DIR;
}
