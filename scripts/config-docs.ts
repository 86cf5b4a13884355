/** Rewrites the generated tables of docs/configuration.md from packages/cli/src/flag-table.ts and DEFAULTS. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigurationDoc } from '../packages/cli/src/configuration-doc.js';
import { FLAGS } from '../packages/cli/src/flag-table.js';

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/configuration.md');
const before = await fs.readFile(file, 'utf8');
const after = renderConfigurationDoc(before, FLAGS);
if (after !== before) await fs.writeFile(file, after);
console.log(after === before ? 'docs/configuration.md is up to date' : 'updated docs/configuration.md');
