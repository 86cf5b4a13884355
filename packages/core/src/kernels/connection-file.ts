import { type FSWatcher, statSync, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
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
 * Reads a connection file; undefined while it is missing or only partly written. Called on every
 * change in the runtime dir and by a poll while a kernel starts: a missing file is answered by a
 * stat that reports ENOENT without throwing, not by a failed read (an Error with its stack, a
 * rejected promise and a FileHandle each time, most of what 20 kernels starting at once allocated).
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

/** How often the file is looked for when its directory cannot be watched, and as a safety net when it can. */
const POLL_MS = 20;
const POLL_WATCHED_MS = 250;

/**
 * Waits until a starting kernel has written its connection file: its directory is watched
 * (inotify), so the file is read when it is written and not 50 times a second per kernel while
 * the kernel starts; a slow poll covers file systems whose events do not arrive. Resolves
 * 'exited' when `exited` settles first, 'timeout' after `timeoutMs`.
 */
export function waitForConnectionFile(
  file: string,
  options: { timeoutMs: number; exited: Promise<unknown> },
): Promise<ConnectionInfo | 'exited' | 'timeout'> {
  return new Promise((resolve) => {
    let done = false;
    let reading = false;
    let again = false;
    let watcher: FSWatcher | undefined;
    let poll: NodeJS.Timeout | undefined;
    const finish = (result: ConnectionInfo | 'exited' | 'timeout') => {
      if (done) return;
      done = true;
      watcher?.close();
      watcher = undefined;
      clearInterval(poll);
      clearTimeout(timeout);
      resolve(result);
    };
    const check = () => {
      if (done) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      void readConnectionFile(file).then((info) => {
        reading = false;
        if (info) finish(info);
        else if (again) {
          again = false;
          check();
        }
      });
    };
    const pollEvery = (ms: number) => {
      clearInterval(poll);
      poll = setInterval(check, ms);
    };
    const name = path.basename(file);
    try {
      watcher = watch(path.dirname(file), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name) check();
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
        if (!done) pollEvery(POLL_MS);
      });
    } catch {
      watcher = undefined; // no inotify here (or out of watches): poll
    }
    pollEvery(watcher ? POLL_WATCHED_MS : POLL_MS);
    const timeout = setTimeout(() => finish('timeout'), options.timeoutMs);
    void options.exited.then(
      () => finish('exited'),
      () => finish('exited'),
    );
    check();
  });
}

/** The ZeroMQ endpoint of one kernel channel. */
export function endpoint(info: ConnectionInfo, port: number): string {
  return info.transport === 'ipc' ? `ipc://${info.ip}-${port}` : `tcp://${info.ip}:${port}`;
}
