import { DEFAULTS, type Defaults } from '@nbserve/http';
import { type Command, Option } from 'commander';
import { flagDefault } from './flag-default-text.js';
import type { FlagSpec } from './flag-table.js';
import { collectFlagValue, parseFlagValue } from './flag-value-parsers.js';

/** The flag's line in `--help`: what it does, and its default. */
export function flagHelp(flag: FlagSpec, defaults: Defaults = DEFAULTS): string {
  return `${flag.description} (default: ${flagDefault(flag, defaults)})`;
}

/** Adds `flag` to `command` (a boolean as a `--x` / `--no-x` pair), its value parsed by its type. */
export function addFlag(command: Command, flag: FlagSpec, defaults: Defaults = DEFAULTS): void {
  const help = flagHelp(flag, defaults);
  if (flag.type === 'boolean') {
    command.addOption(new Option(`--${flag.name}`, help));
    command.addOption(new Option(`--no-${flag.name}`, `the opposite of --${flag.name}`));
    return;
  }
  const option = new Option(`--${flag.name} <${flag.valueName ?? 'value'}>`, help);
  option.argParser((raw: string, previous: unknown) => collectFlagValue(flag, previous, parseFlagValue(flag, raw)));
  command.addOption(option);
}
