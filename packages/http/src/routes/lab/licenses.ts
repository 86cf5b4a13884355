import { promises as fs } from 'node:fs';
import path from 'node:path';
import { badRequest, isObject, type LicenseBundles, licenseReport, readLicenseBundle } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import type { LabApp } from '../../lab/app-dir.js';
import { parseWith } from '../../validate.js';

type Ctx = Context<NbserveEnv>;

const PREFIX = '/lab/api/licenses';

const FORMATS = {
  json: { type: 'application/json', ext: '.json' },
  markdown: { type: 'text/markdown', ext: '.md' },
  csv: { type: 'text/csv', ext: '.csv' },
} as const;

const Flag = v.picklist(['true', 'false', '1', '0'], 'must be true, false, 1 or 0');

const LicensesQuery = v.object({
  format: v.optional(v.picklist(['json', 'markdown', 'csv'], 'format must be json, markdown or csv'), 'json'),
  full_text: v.optional(Flag, 'true'),
  download: v.optional(Flag, '0'),
  bundles: v.optional(v.pipe(v.string(), v.maxLength(200, 'bundles is too long')), '.*'),
});

/** Each build's bundle name, read once: the build does not change while it is served. */
const bundleNames = new WeakMap<LabApp, Promise<string>>();

function appBundleName(app: LabApp): Promise<string> {
  const known = bundleNames.get(app);
  if (known) return known;
  const name = readAppBundleName(app);
  bundleNames.set(app, name);
  return name;
}

/** The app bundle's name, from the `package.json` in or above its static folder (as jupyterlab_server). */
async function readAppBundleName(app: LabApp): Promise<string> {
  for (const file of [path.join(app.staticDir, 'package.json'), path.join(app.dir, 'package.json')]) {
    try {
      const pkg: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
      if (isObject(pkg) && typeof pkg.name === 'string') return pkg.name;
    } catch {
      // not there
    }
  }
  return '@nbserve/jupyterlab';
}

async function licenses(c: Ctx) {
  const lab = c.get('services').lab;
  const app = await lab.requireApp();
  const query = parseWith(LicensesQuery, c.req.query(), 'query');
  // A group that repeats a repetition (`(a+)+`) can backtrack for minutes on a long name
  if (/\([^)]*[+*}][^)]*\)\s*[+*{]/.test(query.bundles)) {
    throw badRequest('Invalid query: bundles may not repeat a repeated group', 'bad value');
  }
  let pattern: RegExp;
  try {
    // jupyterlab_server matches with Python's re.match: anchored at the start only
    pattern = new RegExp(`^(?:${query.bundles})`);
  } catch {
    throw badRequest('Invalid query: bundles is not a regular expression', 'bad value');
  }
  const bundles: LicenseBundles = {};
  for (const extension of await lab.extensions()) {
    if (pattern.test(extension.name)) bundles[extension.name] = await readLicenseBundle(extension.dir);
  }
  const name = await appBundleName(app);
  if (pattern.test(name)) bundles[name] = await readLicenseBundle(app.staticDir);
  const fullText = query.full_text === 'true' || query.full_text === '1';
  const { type, ext } = FORMATS[query.format];
  const headers: Record<string, string> = { 'Content-Type': `${type}; charset=utf-8` };
  if (query.download === 'true' || query.download === '1') {
    headers['Content-Disposition'] = `attachment; filename="jupyterlab-licenses${ext}"`;
  }
  return c.body(licenseReport(bundles, query.format, fullText), 200, headers);
}

/**
 * jupyterlab_server's licenses API: the third-party licenses of the build and of each prebuilt
 * extension, as JSON `{bundles}`, Markdown or CSV (`?format=`), without the texts for
 * `?full_text=false`, for the bundles matching `?bundles=`, as a file with `?download=1`.
 */
export function registerLabLicenseRoutes(app: Hono<NbserveEnv>): void {
  app.get(PREFIX, licenses);
  app.get(`${PREFIX}/*`, licenses);
}
