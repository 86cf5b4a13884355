import { InvalidArgumentError } from 'commander';
import { FLAGS, type FlagSpec } from './flags.js';

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
      if (match[2] !== undefined) throw new InvalidArgumentError(`--${match[1]} takes no value`);
      out.push(`--${alias.flag.name}=${alias.value}`);
    } else {
      out.push(`--${alias.flag.name}${match[2] ?? ''}`);
    }
  }
  return out;
}
