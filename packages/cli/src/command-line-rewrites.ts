import { FLAGS, type FlagSpec } from './flag-table.js';
import { FlagValueError } from './flag-value-parsers.js';

/**
 * The command line before commander reads it: JupyterHub's spellings of flags become nbserve's,
 * and `--x=true|false` of boolean flags becomes `--x` / `--no-x`.
 */

const BOOLEAN_VALUES: Record<string, boolean> = {
  true: true,
  yes: true,
  '1': true,
  false: false,
  no: false,
  '0': false,
};

/**
 * Commander only takes `--flag=value` for flags with values; rewrite `--x=true|false` (also yes/no,
 * 1/0) of boolean flags into `--x` / `--no-x` so every flag accepts the `=value` form.
 */
export function normalizeBooleanArgs(argv: readonly string[], flags: readonly FlagSpec[] = FLAGS): string[] {
  const booleans = new Set(flags.filter((f) => f.type === 'boolean').map((f) => f.name));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const match = /^--(no-)?([a-z][a-z0-9-]*)=(.*)$/s.exec(arg);
    if (match && booleans.has(match[2] as string)) {
      const value = BOOLEAN_VALUES[(match[3] ?? '').toLowerCase()];
      if (value === undefined) {
        throw new FlagValueError(`--${match[1] ?? ''}${match[2]} takes true or false, not ${JSON.stringify(match[3])}`);
      }
      const on = match[1] ? !value : value;
      out.push(on ? `--${match[2]}` : `--no-${match[2]}`);
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * Rewrites each alias (`--debug`, `--SingleUserNotebookApp.default_url=/tree`) into its flag, so
 * the arguments JupyterHub spawners pass work as they do for Jupyter's own single-user server.
 */
export function expandAliases(argv: readonly string[], flags: readonly FlagSpec[] = FLAGS): string[] {
  const aliases = new Map<string, { flag: FlagSpec; value: string | undefined }>();
  for (const flag of flags) {
    for (const alias of flag.aliases ?? []) aliases.set(alias.name, { flag, value: alias.value });
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const match = /^--([^=]+)(=.*)?$/s.exec(arg);
    const alias = match ? aliases.get(match[1] as string) : undefined;
    if (!match || !alias) {
      out.push(arg);
    } else if (alias.value !== undefined) {
      if (match[2] !== undefined) throw new FlagValueError(`--${match[1]} takes no value`);
      out.push(`--${alias.flag.name}=${alias.value}`);
    } else {
      out.push(`--${alias.flag.name}${match[2] ?? ''}`);
    }
  }
  return out;
}
