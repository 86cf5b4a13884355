import { collectFlagValue, parseFlagValue } from './flag-values.js';
import { FLAGS, type FlagSpec } from './flags.js';

/** What `nbserve [root] [flags]` asks for: the root argument and the options its flags set. */
export interface ServeArgs {
  root: string | undefined;
  options: Record<string, unknown>;
}

/** Names that commander reads as subcommands, not as the root directory. */
export const SUBCOMMANDS = new Set(['password', 'kernelspec', 'help']);

/**
 * Reads the usual command line, `nbserve [root]` with known flags in either form, exactly as the
 * commander program in program.ts would, without loading commander (125 KB of code: about 10 ms
 * of a start, docs/benchmarks.md). Anything else (help, the version, subcommands, unknown or
 * malformed flags, `--`) gives `undefined`, and commander reads the line and prints its messages.
 * `normalizeBooleanArgs` and `expandAliases` have already run.
 */
export function parseServeArgs(args: readonly string[], flags: readonly FlagSpec[] = FLAGS): ServeArgs | undefined {
  const byName = new Map<string, { flag: FlagSpec; negated: boolean }>();
  for (const flag of flags) {
    byName.set(flag.name, { flag, negated: false });
    if (flag.type === 'boolean') byName.set(`no-${flag.name}`, { flag, negated: true });
  }
  let root: string | undefined;
  const options: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) {
      if (root !== undefined || SUBCOMMANDS.has(arg)) return undefined;
      root = arg;
      continue;
    }
    const match = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(arg);
    const known = match ? byName.get(match[1] as string) : undefined;
    if (!match || !known) return undefined;
    const { flag, negated } = known;
    if (flag.type === 'boolean') {
      if (match[2] !== undefined) return undefined;
      options[flag.option] = !negated;
      continue;
    }
    let raw = match[2];
    if (raw === undefined) {
      const next = args[i + 1];
      if (next === undefined || next.startsWith('-')) return undefined;
      raw = next;
      i++;
    }
    let value: unknown;
    try {
      value = parseFlagValue(flag, raw);
    } catch {
      return undefined; // commander says what is wrong with it
    }
    options[flag.option] = collectFlagValue(flag, options[flag.option], value);
  }
  return { root, options };
}
