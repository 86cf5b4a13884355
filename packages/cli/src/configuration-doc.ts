import { COMPUTED_DEFAULTS, type ComputedDefaults, DEFAULTS, type Defaults } from '@nbserve/http';
import { flagDefault, formatSize } from './flag-default-text.js';
import type { FlagSpec } from './flag-table.js';

export const DOC_START = '<!-- flags:start (generated from packages/cli/src/flag-table.ts by `pnpm docs:flags`) -->';
export const DOC_END = '<!-- flags:end -->';
export const DEFAULTS_START =
  '<!-- defaults:start (generated from DEFAULTS in packages/http/src/defaults.ts by `pnpm docs:flags`) -->';
export const DEFAULTS_END = '<!-- defaults:end -->';

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
export function renderFlagTable(
  flags: readonly FlagSpec[],
  defaults: Defaults = DEFAULTS,
  computed: ComputedDefaults = COMPUTED_DEFAULTS,
): string {
  const rows = flags.map(
    (flag) =>
      `| ${flagCell(flag)} | ${escapeCell(flagDefault(flag, defaults, computed))} | ${escapeCell(flag.description)} |`,
  );
  return ['| flag | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The markdown table of every entry of `defaults`: option, value, and the flag that sets it. */
export function renderDefaultsTable(flags: readonly FlagSpec[], defaults: Defaults = DEFAULTS): string {
  const rows = Object.entries(defaults).map(([option, value]) => {
    const flag = flags.find((f) => f.option === option);
    const size = flag?.type === 'size' && typeof value === 'number' ? ` (${formatSize(value)})` : '';
    return `| \`${option}\` | \`${escapeCell(JSON.stringify(value))}\`${size} | ${flag ? `\`--${flag.name}\`` : '–'} |`;
  });
  return ['| option | default | flag |', '|---|---|---|', ...rows].join('\n');
}

function replaceSection(doc: string, start: string, end: string, body: string): string {
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from === -1 || to < from) throw new Error(`docs/configuration.md has no generated section ${start}`);
  return `${doc.slice(0, from + start.length)}\n${body}\n${doc.slice(to)}`;
}

/** `doc` with the generated flag table replaced by the current one. */
export function replaceFlagSection(doc: string, flags: readonly FlagSpec[], defaults: Defaults = DEFAULTS): string {
  return replaceSection(doc, DOC_START, DOC_END, renderFlagTable(flags, defaults));
}

/** `doc` with both generated tables (flags, defaults) replaced by the current ones. */
export function renderConfigurationDoc(doc: string, flags: readonly FlagSpec[], defaults: Defaults = DEFAULTS): string {
  const withFlags = replaceFlagSection(doc, flags, defaults);
  return replaceSection(withFlags, DEFAULTS_START, DEFAULTS_END, renderDefaultsTable(flags, defaults));
}
