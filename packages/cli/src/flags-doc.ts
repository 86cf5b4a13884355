import type { FlagSpec } from './flags.js';

export const DOC_START = '<!-- flags:start (generated from packages/cli/src/flags.ts by `pnpm docs:flags`) -->';
export const DOC_END = '<!-- flags:end -->';

function flagCell(flag: FlagSpec): string {
  const also = (flag.aliases ?? []).map((a) => `\`--${a.name}\``).join(', ');
  const suffix = also ? ` (also ${also})` : '';
  if (flag.type === 'boolean') return `\`--${flag.name}\` / \`--no-${flag.name}\`${suffix}`;
  return `\`--${flag.name} <${flag.valueName ?? 'value'}>\`${suffix}`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** The markdown table of every flag, as docs/configuration.md shows it. */
export function renderFlagTable(flags: readonly FlagSpec[]): string {
  const rows = flags.map(
    (flag) => `| ${flagCell(flag)} | ${escapeCell(flag.defaultText ?? '')} | ${escapeCell(flag.description)} |`,
  );
  return ['| flag | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** `doc` with the generated section replaced by the current table. */
export function replaceFlagSection(doc: string, flags: readonly FlagSpec[]): string {
  const start = doc.indexOf(DOC_START);
  const end = doc.indexOf(DOC_END);
  if (start === -1 || end < start) throw new Error('docs/configuration.md has no generated flags section');
  return `${doc.slice(0, start + DOC_START.length)}\n${renderFlagTable(flags)}\n${doc.slice(end)}`;
}
