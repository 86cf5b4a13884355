import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { isProcessAlive, processStartTime } from './process-group.js';

const Text = v.string();
const Port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));

const SessionSchema = v.object({ id: Text, path: Text, name: Text, type: Text, kernelId: Text });

/** One persisted kernel, as the runtime dir keeps it (`nbserve-kernel-<id>.persist.json`). */
const KernelRecordSchema = v.object({
  kernelId: v.pipe(Text, v.minLength(1)),
  specName: v.pipe(Text, v.minLength(1)),
  cwd: Text,
  env: v.record(Text, Text),
  /** The server's session id in the headers it sends, and its own channels' routing id. */
  session: v.pipe(Text, v.minLength(1)),
  routingId: v.pipe(Text, v.minLength(1)),
  /** A local kernel: its process (pid = process group), /proc start time and connection file. */
  local: v.optional(
    v.object({
      pid: v.pipe(v.number(), v.integer(), v.minValue(2)),
      startTime: v.nullable(Text),
      connectionFile: v.pipe(Text, v.minLength(1)),
      connection: v.object({
        ip: Text,
        transport: v.picklist(['tcp', 'ipc']),
        shell_port: Port,
        iopub_port: Port,
        stdin_port: Port,
        control_port: Port,
        hb_port: Port,
        key: Text,
        signature_scheme: Text,
        kernel_name: v.optional(Text),
      }),
    }),
  ),
  /** A kernel on a gateway: found there again by its id (the kernel's id). */
  remote: v.optional(v.boolean()),
  /** Each frontend's routing id and channels session: replies to it are received under that id. */
  clients: v.array(v.object({ identity: v.pipe(Text, v.minLength(1)), sessionId: Text })),
  /** The execute_request a cell is running in, if any. */
  execution: v.optional(
    v.object({
      msgId: Text,
      session: Text,
      cell: v.optional(v.object({ documentId: Text, cellId: Text, requestId: Text })),
    }),
  ),
  lastActivity: Text,
  sessions: v.array(SessionSchema),
  serverPid: v.pipe(v.number(), v.integer()),
  serverStartTime: v.nullable(Text),
});

export type KernelRecord = v.InferOutput<typeof KernelRecordSchema>;
/** What a record holds apart from its owner (filled in when it is written). */
export type KernelRecordBody = Omit<KernelRecord, 'serverPid' | 'serverStartTime'>;

const PREFIX = 'nbserve-kernel-';
const SUFFIX = '.persist.json';

/**
 * The records of kernels that outlive the server (`--persist-kernels`): one file per kernel in the
 * runtime dir, each written atomically (a temp file renamed over it) as the kernel changes, and
 * taken over by the next server on the same runtime dir once the server that wrote it is gone.
 */
export class KernelRecords {
  readonly dir: string;
  readonly #serverStartTime = processStartTime(process.pid) ?? null;

  constructor(runtimeDir: string) {
    this.dir = runtimeDir;
  }

  #file(kernelId: string): string {
    return path.join(this.dir, `${PREFIX}${encodeURIComponent(kernelId)}${SUFFIX}`);
  }

  write(body: KernelRecordBody): void {
    const record: KernelRecord = { ...body, serverPid: process.pid, serverStartTime: this.#serverStartTime };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.#file(body.kernelId);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
    renameSync(temp, file);
  }

  remove(kernelId: string): void {
    rmSync(this.#file(kernelId), { force: true });
  }

  /**
   * The records left by servers that are gone, to adopt. Records of a live server (another one on
   * this runtime dir) are left alone; corrupt ones are removed. `ids` are the kernel ids of every
   * record of a gone server, the corrupt ones included: kernels whose pid records the start-up
   * reaping must not touch.
   */
  orphans(): { records: KernelRecord[]; ids: Set<string> } {
    const records: KernelRecord[] = [];
    const ids = new Set<string>();
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return { records, ids };
    }
    for (const name of names) {
      if (!name.startsWith(PREFIX) || !name.endsWith(SUFFIX)) continue;
      const file = path.join(this.dir, name);
      const id = safeDecode(name.slice(PREFIX.length, -SUFFIX.length));
      let parsed: v.SafeParseResult<typeof KernelRecordSchema>;
      try {
        parsed = v.safeParse(KernelRecordSchema, JSON.parse(readFileSync(file, 'utf8')));
      } catch {
        parsed = { success: false } as v.SafeParseResult<typeof KernelRecordSchema>;
      }
      if (parsed.success && serverAlive(parsed.output)) continue;
      if (id !== undefined) ids.add(id);
      if (parsed.success && parsed.output.kernelId === id) records.push(parsed.output);
      else rmSync(file, { force: true }); // corrupt: ignored, its process never signalled
    }
    return { records, ids };
  }
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function serverAlive(record: KernelRecord): boolean {
  if (record.serverPid === process.pid) return false; // this very process: an earlier server it ran
  return (
    isProcessAlive(record.serverPid) &&
    (record.serverStartTime === null || processStartTime(record.serverPid) === record.serverStartTime)
  );
}
