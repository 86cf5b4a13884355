import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isObject } from '../util/is-object.js';

export interface LicensePackage {
  name?: string;
  versionInfo?: string;
  licenseId?: string;
  extractedText?: string;
}

export type LicenseBundles = Record<string, { packages: LicensePackage[] }>;

export type LicenseFormat = 'json' | 'markdown' | 'csv';

/** Where jupyterlab_server looks for a bundle's license report, relative to its folder. */
const LICENSE_FILES = ['third-party-licenses.json', 'static/third-party-licenses.json'];

/** A bundle's packages from its `third-party-licenses.json` files (none when missing or broken). */
export async function readLicenseBundle(dir: string): Promise<{ packages: LicensePackage[] }> {
  const packages: LicensePackage[] = [];
  for (const name of LICENSE_FILES) {
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(path.join(dir, name), 'utf8'));
      if (isObject(parsed) && Array.isArray(parsed.packages)) packages.push(...parsed.packages.filter(isObject));
    } catch {
      // no report there
    }
  }
  return { packages };
}

/** jupyterlab_server's license reports: JSON `{bundles}`, CSV, or Markdown (with the texts when `fullText`). */
export function licenseReport(bundles: LicenseBundles, format: LicenseFormat, fullText: boolean): string {
  if (format === 'json') return JSON.stringify({ bundles }, null, 2);
  if (format === 'csv') return licenseCsv(bundles);
  return licenseMarkdown(bundles, fullText);
}

const CSV_FIELDS = ['name', 'versionInfo', 'licenseId', 'extractedText'] as const;

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function licenseCsv(bundles: LicenseBundles): string {
  const rows = [['bundle', ...CSV_FIELDS].join(',')];
  for (const [bundle, { packages }] of Object.entries(bundles)) {
    for (const pkg of packages)
      rows.push([bundle, ...CSV_FIELDS.map((f) => String(pkg[f] ?? ''))].map(csvCell).join(','));
  }
  return `${rows.join('\r\n')}\r\n`;
}

function licenseMarkdown(bundles: LicenseBundles, fullText: boolean): string {
  const lines: string[] = [];
  const names = Object.values(bundles).flatMap((b) => b.packages.map((p) => String(p.name ?? 'UNKNOWN').length));
  const longest = names.length > 0 ? Math.max(...names) : 1;
  for (const [bundle, { packages }] of Object.entries(bundles)) {
    lines.push(`# ${bundle}`, '');
    if (packages.length === 0) {
      lines.push('> No licenses found', '');
      continue;
    }
    for (const pkg of packages) {
      const name = `**${String(pkg.name ?? 'UNKNOWN').trim()}**`.padEnd(longest);
      const version = `\`${String(pkg.versionInfo ?? 'UNKNOWN').trim()}\``.padEnd(20);
      lines.push(`## ${[name, version, String(pkg.licenseId ?? 'UNKNOWN').trim()].join('\t')}`);
      if (!fullText) continue;
      const text = typeof pkg.extractedText === 'string' ? pkg.extractedText : '';
      if (text) lines.push('', '', '<pre/>', text, '</pre>', '');
      else lines.push('', '> No license text available', '');
    }
  }
  return lines.join('\n');
}
