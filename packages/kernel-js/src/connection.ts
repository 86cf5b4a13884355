import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import * as v from 'valibot';

const Port = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(65535));

const ConnectionFileSchema = v.object({
  shell_port: Port,
  iopub_port: Port,
  stdin_port: Port,
  control_port: Port,
  hb_port: Port,
  ip: v.pipe(v.string(), v.minLength(1)),
  key: v.string(),
  transport: v.optional(v.picklist(['tcp', 'ipc']), 'tcp'),
  signature_scheme: v.optional(v.pipe(v.string(), v.startsWith('hmac-')), 'hmac-sha256'),
  kernel_name: v.optional(v.string()),
});

export type ConnectionInfo = v.InferOutput<typeof ConnectionFileSchema>;
export type PortName = 'shell_port' | 'iopub_port' | 'stdin_port' | 'control_port' | 'hb_port';

/**
 * Reads the connection file the launcher wrote. A file that does not exist yet means "choose
 * your own ports" (jupyter_client's race-free mode): the kernel binds port 0 and writes it.
 */
export async function readConnectionFile(path: string): Promise<{ info: ConnectionInfo; existed: boolean }> {
  let text: string;
  try {
    // Synchronous on purpose: at start nothing else could run, and it skips a thread-pool hop.
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const info: ConnectionInfo = {
      shell_port: 0,
      iopub_port: 0,
      stdin_port: 0,
      control_port: 0,
      hb_port: 0,
      ip: '127.0.0.1',
      key: randomBytes(16).toString('hex'),
      transport: 'tcp',
      signature_scheme: 'hmac-sha256',
    };
    return { info, existed: false };
  }
  const parsed = v.safeParse(ConnectionFileSchema, JSON.parse(text));
  if (!parsed.success) throw new Error(`invalid connection file ${path}: ${v.summarize(parsed.issues)}`);
  return { info: parsed.output, existed: true };
}

export function endpoint(info: ConnectionInfo, port: number): string {
  if (info.transport === 'ipc') return `ipc://${info.ip}-${port}`;
  const host = info.ip.includes(':') ? `[${info.ip}]` : info.ip;
  return `tcp://${host}:${port === 0 ? '*' : port}`;
}

/** Writes the connection file with the ports actually bound, readable by the owner only. */
export async function writeConnectionFile(path: string, info: ConnectionInfo): Promise<void> {
  writeFileSync(path, `${JSON.stringify(info, null, 1)}\n`, { mode: 0o600 });
}
