import * as v from 'valibot';
import { describeIssues } from '../util/validation-issues.js';

/** A kernel.json normalized to exactly the fields the REST model returns. */
export interface KernelSpec {
  argv: string[];
  env: Record<string, string>;
  display_name: string;
  language: string;
  interrupt_mode: 'signal' | 'message';
  metadata: Record<string, unknown>;
}

/** What one kernelspec is: its name, normalized spec, and where its files are. */
export interface KernelSpecEntry {
  name: string;
  spec: KernelSpec;
  /** Directory holding kernel.json and resources; null for a built-in spec without files. */
  resourceDir: string | null;
  /** Resource key (`logo-64x64`, `kernel.js`, `kernel.css`) to file name inside resourceDir. */
  resources: Record<string, string>;
}

/** A spec registered in code (e.g. nbserve's JavaScript kernel) rather than found on disk. */
export interface BuiltinKernelSpec {
  name: string;
  spec: Omit<KernelSpec, 'env' | 'interrupt_mode' | 'metadata'> & Partial<KernelSpec>;
  resourceDir?: string | null;
}

/** jupyter_client reads every field but argv as optional (`display_name` and `language` default to ""). */
const KernelJsonSchema = v.object({
  argv: v.pipe(v.array(v.string()), v.minLength(1, 'argv must not be empty')),
  display_name: v.optional(v.string(), ''),
  language: v.optional(v.string(), ''),
  env: v.optional(v.record(v.string(), v.string()), {}),
  interrupt_mode: v.optional(v.picklist(['signal', 'message']), 'signal'),
  metadata: v.optional(v.record(v.string(), v.unknown()), {}),
});

/** Validates a parsed kernel.json and drops the keys the REST model does not carry. */
export function normalizeKernelSpec(value: unknown): { spec: KernelSpec } | { error: string } {
  const result = v.safeParse(KernelJsonSchema, value);
  if (!result.success) return { error: describeIssues(result.issues) };
  const o = result.output;
  return {
    spec: {
      argv: o.argv,
      env: o.env,
      display_name: o.display_name,
      language: o.language,
      interrupt_mode: o.interrupt_mode,
      metadata: o.metadata,
    },
  };
}

/** Jupyter's name rule; names breaking it are warned about but still listed (jupyter_client 7+). */
export const VALID_KERNEL_NAME = /^[a-z0-9._-]+$/i;

/**
 * The kernel name to start for a requested one. jupyter_client's KernelManager turns the name
 * `python` (exactly, as old notebooks and clients send it) into `python3`, its native kernel,
 * before looking the spec up; nothing else is aliased.
 */
export function kernelNameToStart(requested: string): string {
  return requested === 'python' ? 'python3' : requested;
}

/** Resource files served for a spec: `kernel.js`, `kernel.css`, and `logo-*` keyed without extension. */
export function resourceKey(fileName: string): string | undefined {
  if (fileName === 'kernel.js' || fileName === 'kernel.css') return fileName;
  if (fileName.startsWith('logo-')) {
    const dot = fileName.lastIndexOf('.');
    return dot > 0 ? fileName.slice(0, dot) : fileName;
  }
  return undefined;
}
