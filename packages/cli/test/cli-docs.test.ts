import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DEFAULTS } from '@nbserve/http';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../../testing/repo.js';
import {
  DEFAULTS_END,
  DEFAULTS_START,
  DOC_END,
  DOC_START,
  renderConfigurationDoc,
  renderDefaultsTable,
  renderFlagTable,
  replaceFlagSection,
} from '../src/configuration-doc.js';
import { flagDefault } from '../src/flag-default-text.js';
import { FLAGS } from '../src/flag-table.js';

const MiB = 1024 * 1024;

const read = (file: string) => fs.readFile(path.join(REPO, file), 'utf8');

/** The cells of the markdown table rows between `start` and `end`, without the header rows. */
function tableRows(doc: string, start: string, end: string): string[][] {
  const section = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end));
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replace(/\\\|/g, '|')),
    );
}

/**
 * Where prose states a default, with the words DEFAULTS gives it. A default that changes makes
 * the sentence fail here until it is rewritten.
 */
const MENTIONS: readonly [file: string, text: string][] = [
  ['README.md', `keeps it for ${DEFAULTS.kernelBufferMaxAge / 60} minutes by default, \`--kernel-buffer-max-age\``],
  ['README.md', `(\`--port-retries\`, default ${DEFAULTS.portRetries}; 0 = fail at once)`],
  ['docs/compatibility.md', `\`max_copy_folder_size_mb\` (${DEFAULTS.maxCopyFolderSizeMb} MB by default)`],
  ['docs/compatibility.md', `\`--max-copy-folder-size-mb\` (default ${DEFAULTS.maxCopyFolderSizeMb})`],
  ['docs/compatibility.md', `Can't copy folders larger than ${DEFAULTS.maxCopyFolderSizeMb}MB`],
  ['docs/kernels.md', `\`--kernel-buffer-max-bytes\`\n  (${DEFAULTS.kernelBufferMaxBytes / MiB} MiB)`],
  ['docs/kernels.md', `\`--kernel-buffer-max-age\` (${DEFAULTS.kernelBufferMaxAge} s)`],
  ['docs/kernels.md', `(\`--kernel-buffer-max-age\`, ${DEFAULTS.kernelBufferMaxAge} s by default`],
  ['docs/kernels.md', `**Pings** every ${DEFAULTS.wsPingInterval} s (\`wsPingInterval\`)`],
  [
    'docs/kernels.md',
    `\`rateLimitWindow\` ${DEFAULTS.rateLimitWindow} s): off by default (${DEFAULTS.iopubMsgRateLimit})`,
  ],
  ['docs/security.md', `\`--max-body-size\` (${DEFAULTS.maxBodySize / MiB} MiB)`],
  ['docs/gateway.md', `did not answer within ${DEFAULTS.gatewayRequestTimeout} s\` — the request timeout`],
];

describe('docs/configuration.md', () => {
  it('documents every flag of the table exactly as the table says (run `pnpm docs:flags` after adding one)', async () => {
    const doc = await read('docs/configuration.md');
    const section = doc.slice(doc.indexOf(DOC_START), doc.indexOf(DOC_END));
    for (const row of renderFlagTable(FLAGS).split('\n')) expect(section).toContain(row);
    expect(renderConfigurationDoc(doc, FLAGS)).toBe(doc);
  });

  it("gives each flag's default as DEFAULTS has it", async () => {
    const rows = tableRows(await read('docs/configuration.md'), DOC_START, DOC_END);
    expect(rows).toHaveLength(FLAGS.length);
    for (const [i, flag] of FLAGS.entries()) {
      const [cell, shown] = rows[i] as string[];
      expect(cell).toContain(`--${flag.name}`);
      expect(shown).toBe(flagDefault(flag));
      if (flag.option in DEFAULTS) {
        const value: unknown = DEFAULTS[flag.option as keyof typeof DEFAULTS];
        const base = flag.defaultNote ? shown?.replace(` (${flag.defaultNote})`, '') : shown;
        if (typeof value === 'number' && flag.type !== 'size') expect(base).toBe(String(value));
        if (typeof value === 'boolean') expect(base).toBe(String(value));
      }
    }
  });

  it('lists every entry of DEFAULTS with its value', async () => {
    const doc = await read('docs/configuration.md');
    const rows = tableRows(doc, DEFAULTS_START, DEFAULTS_END);
    const listed = Object.fromEntries(
      rows.map(([option, value]) => [option?.replace(/`/g, ''), JSON.parse(/^`([^`]*)`/.exec(value ?? '')?.[1] ?? '')]),
    );
    expect(listed).toEqual(DEFAULTS);
    expect(doc).toContain(renderDefaultsTable(FLAGS));
  });

  it('the generator replaces only its sections', () => {
    const doc = `intro\n${DOC_START}\nold\n${DOC_END}\nmiddle\n${DEFAULTS_START}\nold\n${DEFAULTS_END}\noutro\n`;
    const flags = FLAGS.slice(0, 1);
    expect(replaceFlagSection(doc, flags)).toBe(
      `intro\n${DOC_START}\n${renderFlagTable(flags)}\n${DOC_END}\nmiddle\n${DEFAULTS_START}\nold\n${DEFAULTS_END}\noutro\n`,
    );
    expect(renderConfigurationDoc(doc, flags)).toBe(
      `intro\n${DOC_START}\n${renderFlagTable(flags)}\n${DOC_END}\nmiddle\n${DEFAULTS_START}\n${renderDefaultsTable(flags)}\n${DEFAULTS_END}\noutro\n`,
    );
    expect(replaceFlagSection(doc, flags)).toContain('`--port <port>`');
    expect(() => replaceFlagSection('no markers', FLAGS)).toThrow();
    expect(() => renderConfigurationDoc(`${DOC_START}\n${DOC_END}`, FLAGS)).toThrow();
  });
});

describe('defaults stated in prose', () => {
  it.each(MENTIONS)('%s says %j', async (file, text) => {
    expect(await read(file)).toContain(text);
  });

  it.each(['README.md', 'docs/gateway.md'])("%s's flag table gives the defaults DEFAULTS has", async (file) => {
    const rows = (await read(file)).split('\n').filter((line) => line.startsWith('| `--'));
    let checked = 0;
    for (const row of rows) {
      const [flagCell, defaultCell] = row
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim());
      const flag = FLAGS.find(
        (f) => flagCell?.startsWith(`\`--${f.name} `) || flagCell === `\`--${f.name}\` / \`--no-${f.name}\``,
      );
      expect(flag, row).toBeDefined();
      if (!flag || !(flag.option in DEFAULTS)) continue;
      expect(defaultCell?.replace(/`/g, ''), row).toBe(flagDefault(flag));
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });
});
