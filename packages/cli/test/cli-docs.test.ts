import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAGS } from '../src/flags.js';
import { DOC_END, DOC_START, renderFlagTable, replaceFlagSection } from '../src/flags-doc.js';
import { REPO } from './cli-helpers.js';

describe('docs/configuration.md', () => {
  it('documents every flag of the table exactly as the table says (run `pnpm docs:flags` after adding one)', async () => {
    const doc = await fs.readFile(path.join(REPO, 'docs/configuration.md'), 'utf8');
    const section = doc.slice(doc.indexOf(DOC_START), doc.indexOf(DOC_END));
    for (const row of renderFlagTable(FLAGS).split('\n')) expect(section).toContain(row);
  });

  it('the generator replaces only its section', () => {
    const doc = `intro\n${DOC_START}\nold\n${DOC_END}\noutro\n`;
    const out = replaceFlagSection(doc, FLAGS.slice(0, 1));
    expect(out).toBe(`intro\n${DOC_START}\n${renderFlagTable(FLAGS.slice(0, 1))}\n${DOC_END}\noutro\n`);
    expect(out).toContain('`--port <port>`');
    expect(() => replaceFlagSection('no markers', FLAGS)).toThrow();
  });
});
