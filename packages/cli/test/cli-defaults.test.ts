import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULTS, type Defaults, type NbserveOptions, resolveOptions } from '@nbserve/http';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../../testing/repo.js';
import { addFlag, flagHelp } from '../src/commander-options.js';
import { renderConfigurationDoc } from '../src/configuration-doc.js';
import { flagDefault } from '../src/flag-default-text.js';
import { FLAGS } from '../src/flag-table.js';
import { buildProgram } from '../src/program.js';

/** `nbserve --help` as the program prints it, whitespace folded. */
const program = buildProgram(() => {})
  .helpInformation()
  .replace(/\s+/g, ' ');

/** The entries of DEFAULTS only the listener (`serve()`) and the `nbserve` command read. */
const NOT_SERVER_OPTIONS = new Set(['port', 'portRetries', 'openBrowser', 'logLevel', 'logFormat']);

/** A value of the same type as `value` that differs from it. */
function changed(key: string, value: unknown): unknown {
  if (typeof value === 'number') return value * 2 + 7;
  if (typeof value === 'boolean') return !value;
  if (Array.isArray(value)) return [`changed-${key}.example`];
  if (key === 'baseUrl') return '/changed/';
  if (key === 'ip') return '10.9.8.7';
  if (key === 'auditLogCode') return value === 'text' ? 'hash' : 'text';
  return `changed-${key}`;
}

/** DEFAULTS with one entry changed. */
function withChanged(key: keyof Defaults): Defaults {
  return { ...DEFAULTS, [key]: changed(key, DEFAULTS[key]) } as Defaults;
}

const KEYS = Object.keys(DEFAULTS) as (keyof Defaults)[];
const SERVER_KEYS = KEYS.filter((key): key is keyof Defaults & keyof NbserveOptions => !NOT_SERVER_OPTIONS.has(key));

describe('one table of defaults: a change to an entry of DEFAULTS changes', () => {
  const root = os.tmpdir();

  it.each(SERVER_KEYS)('the resolved option %s', (key) => {
    const table = withChanged(key);
    expect(resolveOptions({ root, token: '' })[key]).toEqual(DEFAULTS[key]);
    expect(resolveOptions({ root, token: '' }, table)[key]).toEqual(table[key]);
  });

  it.each(FLAGS.filter((flag) => flag.option in DEFAULTS).map((flag) => [flag.name, flag] as const))(
    '--help for --%s',
    (_name, flag) => {
      const table = withChanged(flag.option as keyof Defaults);
      expect(flagDefault(flag, table)).not.toBe(flagDefault(flag));
      const oneFlag = (defaults?: Defaults) => {
        const command = new Command('nbserve');
        addFlag(command, flag, defaults);
        return command.helpInformation().replace(/\s+/g, ' ');
      };
      expect(oneFlag(table)).toContain(`(default: ${flagDefault(flag, table)})`);
      expect(oneFlag()).toContain(`(default: ${flagDefault(flag)})`);
      // The real program adds its flags this way, from DEFAULTS.
      expect(program).toContain(flagHelp(flag));
    },
  );

  it.each(KEYS)('docs/configuration.md for %s', async (key) => {
    const doc = await fs.readFile(path.join(REPO, 'docs/configuration.md'), 'utf8');
    const table = withChanged(key);
    const regenerated = renderConfigurationDoc(doc, FLAGS, table);
    expect(regenerated).not.toBe(doc);
    expect(regenerated).toContain(`| \`${key}\` | \`${JSON.stringify(table[key])}\``);
    const flag = FLAGS.find((f) => f.option === key);
    if (flag) expect(regenerated).toContain(`| ${flagDefault(flag, table)} | ${flag.description} |`);
  });

  it('every flag takes its default from DEFAULTS or from a described computed default', () => {
    for (const flag of FLAGS) expect(flagDefault(flag)).not.toBe('undefined');
    const flagged = new Set(FLAGS.map((flag) => flag.option));
    // Entries without a flag are programmatic-only settings, and still documented in the table.
    expect(KEYS.filter((key) => !flagged.has(key))).toEqual(['shutdownWaitTime', 'rateLimitWindow', 'wsPingInterval']);
  });
});

describe('no default written outside DEFAULTS', () => {
  it.each([
    'packages/http/src/options.ts',
    'packages/http/src/services.ts',
    'packages/http/src/serve.ts',
    'packages/cli/src/program.ts',
    'packages/cli/src/commands/serve.ts',
  ])('%s falls back to no literal number or boolean', async (file) => {
    const text = await fs.readFile(path.join(REPO, file), 'utf8');
    expect(text.match(/(\?\?|\|\|)\s*\(?\s*(-?\d[\d_]*|true|false)\b/g) ?? []).toEqual([]);
    expect(text.match(/\b\w+\s*=\s*(-?\d[\d_]*|true|false)\s*[,)}]/g) ?? []).toEqual([]);
  });
});
