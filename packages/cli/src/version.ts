import { readFileSync } from 'node:fs';

/** The CLI package's version; `package.json` sits one level above both `src/` and `dist/`. */
export function cliVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === 'string' ? version : '0.0.0';
}
