/**
 * The rspack configuration of the JupyterLab app: one entry (src/index.js) and module federation
 * sharing every package the app imports, so prebuilt extensions reuse JupyterLab's copies (the
 * singletons must be one instance: a second copy of a token or widget class breaks plugins).
 * Loader rules come from @jupyter/builder's base config (the loaders JupyterLab's packages need).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import rspack from '@rspack/core';

/** The package's own `require`, and the directory of a dependency (pnpm links direct deps here). */
export function resolver(root) {
  const require = createRequire(path.join(root, 'package.json'));
  const packageDir = (name) => realpathSync(path.join(root, 'node_modules', name));
  const packageJson = (dir) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return { require, packageDir, packageJson };
}

/**
 * Module federation's `shared`: the app's dependencies and those of its extensions, each with the
 * range its dependent asked for. Singletons are JupyterLab's list plus what an extension's
 * `jupyterlab.sharedPackages` marks `singleton`. The app provides everything it imports, so an
 * extension's `bundled: false` (do not provide) does not apply here; `bundled: true` is
 * module federation's default and must not become `import: true` (rspack 2 rejects that).
 */
function sharedConfig(pkg, { packageDir, packageJson }) {
  const singletons = new Set(pkg.jupyterlab.singletonPackages);
  const shared = {};
  const add = (dependencies = {}) => {
    for (const [name, range] of Object.entries(dependencies)) {
      if (!range.startsWith('workspace:')) shared[name] ??= { requiredVersion: range.replace(/^~/, '^') };
    }
  };
  add(pkg.dependencies);
  for (const name of [...pkg.jupyterlab.extensions, ...Object.keys(pkg.jupyterlab.mimeExtensions)]) {
    const data = packageJson(packageDir(name));
    add(data.dependencies);
    for (const [dep, config] of Object.entries(data.jupyterlab?.sharedPackages ?? {})) {
      if (config === false) delete shared[dep];
      else if (config.singleton) singletons.add(dep);
    }
  }
  for (const name of singletons) {
    if (shared[name]) shared[name].singleton = true;
  }
  return shared;
}

/** The app's configuration; `outDir` receives the static files. */
export function appConfig({ root, outDir, pkg }) {
  const resolve = resolver(root);
  const builderDir = resolve.packageDir('@jupyter/builder');
  const base = resolve.require('@jupyter/builder/lib/webpack.config.base');
  const { WPPlugin } = resolve.require('@jupyter/builder');
  return {
    mode: 'production',
    context: root,
    entry: { main: './src/index.js' },
    output: {
      path: outDir,
      filename: '[name].[contenthash].js',
      chunkFilename: '[name].[contenthash].js',
      assetModuleFilename: '[name].[contenthash][ext]',
      // Set at run time from the page config (src/public-path.js).
      publicPath: '',
      hashFunction: 'xxhash64',
    },
    module: base.module,
    resolve: base.resolve,
    // The builder's rules name loaders (style-loader, css-loader) it depends on itself.
    resolveLoader: { modules: [path.resolve(builderDir, '../..'), 'node_modules'] },
    devtool: false,
    bail: true,
    performance: { hints: false },
    plugins: [
      new rspack.ProvidePlugin({ process: 'process/browser' }),
      new rspack.container.ModuleFederationPluginV1({
        name: 'CORE_FEDERATION',
        library: { type: 'var', name: ['_JUPYTERLAB', 'CORE_LIBRARY_FEDERATION'] },
        shared: sharedConfig(pkg, resolve),
      }),
      new WPPlugin.JSONLicenseWebpackPlugin({ excludedPackageTest: (name) => name === pkg.name }),
    ],
  };
}

/** Theme configurations from @jupyter/builder's Build.ensureAssets, with their loaders found. */
export function withLoaders(root, configs) {
  const builderDir = resolver(root).packageDir('@jupyter/builder');
  return configs.map((config) => ({
    ...config,
    context: root,
    resolveLoader: { modules: [path.resolve(builderDir, '../..'), 'node_modules'] },
  }));
}
