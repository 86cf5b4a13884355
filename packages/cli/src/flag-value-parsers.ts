import * as v from 'valibot';
import type { FlagSpec } from './flag-table.js';

/**
 * A flag value that cannot be read. Its `code` and `exitCode` are those of commander's
 * InvalidArgumentError, so commander reports it the same way, and library users of
 * `parseFlagValue` (index.ts) need no commander.
 */
export class FlagValueError extends Error {
  readonly code = 'commander.invalidArgument';
  readonly exitCode = 1;
}

function fail(flag: FlagSpec, message: string): never {
  throw new FlagValueError(`--${flag.name}: ${message}`);
}

const SizeSchema = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^\d+(?:\.\d+)?\s*(?:[kKmMgG](?:i?[bB])?|[bB])?$/, 'expected bytes, e.g. 1048576 or 512M'),
);

/** Parses one flag value by its type, with a message that names the flag. */
export function parseFlagValue(flag: FlagSpec, raw: string): unknown {
  switch (flag.type) {
    case 'integer': {
      const parsed = v.safeParse(v.pipe(v.string(), v.trim(), v.regex(/^-?\d+$/), v.transform(Number)), raw);
      if (!parsed.success) fail(flag, `expected a whole number, got ${JSON.stringify(raw)}`);
      const value = parsed.output;
      if ((flag.min !== undefined && value < flag.min) || (flag.max !== undefined && value > flag.max)) {
        fail(flag, `must be between ${flag.min} and ${flag.max}`);
      }
      return value;
    }
    case 'number': {
      const parsed = v.safeParse(v.pipe(v.string(), v.trim(), v.regex(/^\d+(?:\.\d+)?$/), v.transform(Number)), raw);
      if (!parsed.success) fail(flag, `expected a number, got ${JSON.stringify(raw)}`);
      const value = parsed.output;
      if ((flag.min !== undefined && value < flag.min) || (flag.max !== undefined && value > flag.max)) {
        fail(flag, `must be between ${flag.min} and ${flag.max}`);
      }
      return value;
    }
    case 'size': {
      const parsed = v.safeParse(SizeSchema, raw);
      if (!parsed.success) fail(flag, `expected bytes (e.g. 1048576 or 512M), got ${JSON.stringify(raw)}`);
      const match = /^(\d+(?:\.\d+)?)\s*([kKmMgG])?/.exec(parsed.output);
      const unit = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(match?.[2] ?? '').toLowerCase()] ?? 1;
      const bytes = Math.floor(Number(match?.[1]) * unit);
      if (bytes < 1) fail(flag, 'must be at least 1 byte');
      return bytes;
    }
    case 'pairs': {
      const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)=([^\r\n]*)$/.exec(raw);
      if (!match) fail(flag, `expected NAME=VALUE, got ${JSON.stringify(raw)}`);
      const [name, text] = [match[1] as string, match[2] as string];
      if (flag.min === undefined) return [name, text];
      return [name, parseFlagValue({ ...flag, name: `${flag.name} ${name}`, type: 'integer' }, text)];
    }
    case 'list':
      return raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    default:
      return raw;
  }
}

/**
 * The value of a flag given again: a list flag adds to the list (`--allow-origin a --allow-origin
 * b`), pairs collect into one object (`--gateway-header A=1 --gateway-header B=2`), others replace.
 */
export function collectFlagValue(flag: FlagSpec, previous: unknown, value: unknown): unknown {
  if (flag.type === 'list' && Array.isArray(previous)) return [...previous, ...(value as string[])];
  if (flag.type === 'pairs') {
    const [name, text] = value as [string, unknown];
    return { ...(previous as Record<string, unknown> | undefined), [name]: text };
  }
  return value;
}
