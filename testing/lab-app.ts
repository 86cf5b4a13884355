/**
 * Small stand-ins for a built JupyterLab app directory (the layout `@nbserve/jupyterlab` builds,
 * jupyterlab_server's app dir) and for a prebuilt (federated) extension, written into temp dirs,
 * so the server side of JupyterLab is tested without a 20 MB build.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/** The index.html of the fixture: the three placeholders the server fills in. */
export const LAB_TEMPLATE = `<!doctype html>
<html><head><meta charset="utf-8"><title>JupyterLab</title>
<script id="jupyter-config-data" type="application/json">{{page_config}}</script>
<script defer src="{{static_url}}main.0123456789abcdef.js"></script>
</head><body data-base="{{base_url}}"></body></html>
`;

/** The themes plugin's schema, as @jupyterlab/apputils-extension ships it (trimmed). */
export const THEMES_SCHEMA = {
  title: 'Theme',
  'jupyter.lab.setting-icon-label': 'Theme Manager',
  description: 'Theme manager settings.',
  type: 'object',
  additionalProperties: false,
  properties: {
    theme: { type: 'string', title: 'Selected Theme', default: 'JupyterLab Light' },
    'theme-scrollbars': { type: 'boolean', title: 'Scrollbar Theming', default: false },
    overrides: { type: 'object', title: 'Theme CSS Overrides', default: { 'code-font-size': null } },
  },
};

const SHORTCUTS_SCHEMA = {
  title: 'Keyboard Shortcuts',
  type: 'object',
  properties: { shortcuts: { type: 'array', items: { type: 'object' }, default: [] } },
};

export const MAIN_JS = 'console.log("lab main");\n'.repeat(200);

async function write(file: string, data: string | Uint8Array): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, data);
}

/**
 * Writes a lab app dir into `dir`: build.json (version 4.6.4, `disabled` plugins), index.html,
 * two plugins' schemas with their package.json.orig, the light theme's CSS, a hashed main bundle
 * with .br/.gz beside it, an unhashed file, and a license report.
 */
export async function writeLabAppDir(dir: string, options: { disabled?: string[] } = {}): Promise<string> {
  await write(
    path.join(dir, 'build.json'),
    JSON.stringify({ version: '4.6.4', disabledExtensions: options.disabled ?? [], inputsHash: 'fixture' }),
  );
  await write(path.join(dir, 'index.html'), LAB_TEMPLATE);
  const apputils = path.join(dir, 'schemas', '@jupyterlab', 'apputils-extension');
  await write(path.join(apputils, 'themes.json'), JSON.stringify(THEMES_SCHEMA));
  await write(
    path.join(apputils, 'package.json.orig'),
    JSON.stringify({ name: '@jupyterlab/apputils-extension', version: '4.6.4' }),
  );
  const shortcuts = path.join(dir, 'schemas', '@jupyterlab', 'shortcuts-extension');
  await write(path.join(shortcuts, 'shortcuts.json'), JSON.stringify(SHORTCUTS_SCHEMA));
  const theme = path.join(dir, 'themes', '@jupyterlab', 'theme-light-extension');
  await write(
    path.join(theme, 'index.css'),
    ".jp-x { background: url('images/logo.svg'); }\n.jp-y { background: url('/abs.svg'); }\n",
  );
  await write(path.join(theme, 'images', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const main = Buffer.from(MAIN_JS);
  const staticDir = path.join(dir, 'static');
  await write(path.join(staticDir, 'main.0123456789abcdef.js'), main);
  await write(path.join(staticDir, 'main.0123456789abcdef.js.br'), brotliCompressSync(main));
  await write(path.join(staticDir, 'main.0123456789abcdef.js.gz'), gzipSync(main));
  await write(path.join(staticDir, 'style.css'), 'body { margin: 0 }\n');
  await write(
    path.join(staticDir, 'third-party-licenses.json'),
    JSON.stringify({
      packages: [
        {
          name: '@lumino/widgets',
          versionInfo: '2.7.1',
          licenseId: 'BSD-3-Clause',
          extractedText: 'Copyright (c) Lumino',
        },
        { name: 'marked', versionInfo: '16.0.0', licenseId: 'MIT', extractedText: 'MIT, with "quotes", and commas' },
      ],
    }),
  );
  await write(path.join(staticDir, 'package.json'), JSON.stringify({ name: '@nbserve/jupyterlab', version: '0.1.0' }));
  return dir;
}

/**
 * Writes a prebuilt extension `name` into `<labextensionsDir>/<name>` as `jupyter labextension
 * build` lays it out: package.json with `jupyterlab._build`, a remoteEntry, a settings schema.
 */
export async function writeFederatedExtension(
  labextensionsDir: string,
  name: string,
  options: { disables?: string[]; version?: string } = {},
): Promise<string> {
  const dir = path.join(labextensionsDir, ...name.split('/'));
  const pkg = {
    name,
    version: options.version ?? '1.0.0',
    jupyterlab: {
      ...(options.disables ? { disabledExtensions: options.disables } : {}),
      _build: { load: 'static/remoteEntry.abcdef0123456789.js', extension: './extension', style: './style' },
    },
  };
  await write(path.join(dir, 'package.json'), JSON.stringify(pkg));
  await write(path.join(dir, 'static', 'remoteEntry.abcdef0123456789.js'), `/* remote entry of ${name} */\n`);
  await write(
    path.join(dir, 'schemas', name, 'plugin.json'),
    JSON.stringify({ type: 'object', properties: { enabled: { type: 'boolean', default: true } } }),
  );
  await write(path.join(dir, 'schemas', name, 'package.json.orig'), JSON.stringify({ name, version: pkg.version }));
  await write(
    path.join(dir, 'static', 'third-party-licenses.json'),
    JSON.stringify({ packages: [{ name: 'left-pad', versionInfo: '1.3.0', licenseId: 'WTFPL', extractedText: '' }] }),
  );
  return dir;
}
