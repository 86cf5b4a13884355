import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import type { ConnectionInfo } from './types.js';

const Port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));

const ConnectionSchema = v.object({
  ip: v.string(),
  transport: v.optional(v.picklist(['tcp', 'ipc']), 'tcp'),
  shell_port: Port,
  iopub_port: Port,
  stdin_port: Port,
  control_port: Port,
  hb_port: Port,
  key: v.string(),
  signature_scheme: v.optional(v.string(), 'hmac-sha256'),
  kernel_name: v.optional(v.string()),
});

/**
 * Reads a connection file; undefined while it is missing or only partly written. Called every
 * 20 ms while a kernel starts: a missing file is answered by a stat that reports ENOENT without
 * throwing, not by a failed read (an Error with its stack, a rejected promise and a FileHandle per
 * poll, which under 20 kernels starting at once was most of what the server allocated).
 */
export async function readConnectionFile(file: string): Promise<ConnectionInfo | undefined> {
  if (!exists(file)) return undefined;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const result = v.safeParse(ConnectionSchema, JSON.parse(text));
    if (!result.success) return undefined;
    const { kernel_name, ...rest } = result.output;
    return kernel_name === undefined ? rest : { ...rest, kernel_name };
  } catch {
    return undefined;
  }
}

function exists(file: string): boolean {
  try {
    return statSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true; // not ENOENT (e.g. EACCES): let the read report it
  }
}

/** The ZeroMQ endpoint of one kernel channel. */
export function endpoint(info: ConnectionInfo, port: number): string {
  return info.transport === 'ipc' ? `ipc://${info.ip}-${port}` : `tcp://${info.ip}:${port}`;
}
