// needs: kernel
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../../testing/ports.js';
import { makeTempDir } from '../../../testing/temp.js';
import { waitFor } from '../../../testing/wait.js';
import { KernelClient, type Message, ofType, sourceArgv } from './kernel-client.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** True while the process exists and is not a zombie (kill(0) succeeds on zombies). */
function running(pid: number): boolean {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((r) => child.once('exit', (code) => r(code)));
}

describe('kernel lifecycle', () => {
  it('writes a 0600 connection file with the ports it chose when the launcher left that to it', async () => {
    const kernel = await KernelClient.launch();
    cleanups.push(() => kernel.close());
    await kernel.ready();
    const file = path.join(kernel.dir, 'kernel.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const info = JSON.parse(await readFile(file, 'utf8'));
    expect(info).toMatchObject({ ip: '127.0.0.1', transport: 'tcp', signature_scheme: 'hmac-sha256' });
    expect(info.key).toMatch(/^[0-9a-f]{32}$/);
  });

  it('binds the ports of an existing connection file, with its key', async () => {
    const dir = await makeTempDir('kernel-js-conn-');
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const [shell, iopub, stdin, control, hb] = await freePorts(5);
    const info = {
      shell_port: shell,
      iopub_port: iopub,
      stdin_port: stdin,
      control_port: control,
      hb_port: hb,
      ip: '127.0.0.1',
      key: 'a-secret-key',
      transport: 'tcp',
      signature_scheme: 'hmac-sha256',
      kernel_name: 'javascript',
    };
    const file = path.join(dir, 'conn.json');
    await writeFile(file, JSON.stringify(info), { mode: 0o600 });
    const argv = sourceArgv(file);
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: dir, stdio: 'ignore', detached: true });
    const kernel = new KernelClient(info, child);
    cleanups.push(() => kernel.close());
    const reply = await kernel.ready();
    expect(reply.content.status).toBe('ok');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(info);
  });

  it('refuses an invalid connection file with a clear message', async () => {
    const dir = await makeTempDir('kernel-js-bad-');
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'conn.json');
    await writeFile(file, JSON.stringify({ shell_port: 'nope', ip: '127.0.0.1', key: '' }));
    const argv = sourceArgv(file);
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    expect(await exited(child)).not.toBe(0);
    expect(stderr).toContain('invalid connection file');
  });

  it('runs executes sent right after the first kernel_info_reply, in order (the worker may still be booting)', async () => {
    const kernel = await KernelClient.launch();
    cleanups.push(() => kernel.close());
    await kernel.ready();
    const code = ['let n = 1', 'n += 1', 'n * 10'];
    const order: string[] = [];
    const ids: string[] = [];
    for (const c of code) {
      const content = { code: c, silent: false, store_history: true, user_expressions: {}, allow_stdin: false };
      const id = await kernel.send('shell', 'execute_request', content);
      ids.push(id);
      void kernel.pending.get(id)?.then(() => order.push(id));
    }
    const replies = await Promise.all(ids.map((id) => kernel.pending.get(id) as Promise<Message>));
    expect(replies.map((r) => r.content.status)).toEqual(['ok', 'ok', 'ok']);
    expect(replies.map((r) => r.content.execution_count)).toEqual([1, 2, 3]);
    expect(order).toEqual(ids);
    const last = ofType(await kernel.iopubUntilIdle(ids[2] as string), 'execute_result')[0];
    expect(last?.content.data).toEqual({ 'text/plain': '20' });
  });

  it('answers shutdown_request (restart flag echoed) on control and exits', async () => {
    const kernel = await KernelClient.launch();
    cleanups.push(() => kernel.close());
    await kernel.ready();
    const child = kernel.child as ChildProcess;
    const done = exited(child);
    const { reply, iopub } = await kernel.request('control', 'shutdown_request', { restart: true });
    expect(reply.header.msg_type).toBe('shutdown_reply');
    expect(reply.content).toEqual({ status: 'ok', restart: true });
    expect(ofType(iopub, 'shutdown_reply')[0]?.content).toEqual({ status: 'ok', restart: true });
    expect(await done).toBe(0);
  });

  it('exits by itself when the process named by JPY_PARENT_PID dies, even by SIGKILL', async () => {
    const dir = await makeTempDir('kernel-js-parent-');
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'kernel.json');
    const pidFile = path.join(dir, 'kernel.pid');
    // A stand-in server: launches the kernel like nbserve does, then waits to be killed.
    const launcher = `
      const { spawn } = require('node:child_process');
      const argv = ${JSON.stringify(sourceArgv(file))};
      const child = spawn(argv[0], argv.slice(1), {
        stdio: 'ignore', detached: true, env: { ...process.env, JPY_PARENT_PID: String(process.pid) },
      });
      require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['-e', launcher], { stdio: 'ignore' });
    let kernelPid = 0;
    await waitFor(
      () => {
        try {
          kernelPid = Number(readFileSync(pidFile, 'utf8'));
        } catch {
          return false;
        }
        return kernelPid > 0;
      },
      { timeoutMs: 10_000 },
    );
    cleanups.push(async () => {
      if (running(kernelPid)) process.kill(-kernelPid, 'SIGKILL');
    });
    // Wait until the kernel is really up (it wrote its connection file), then kill the parent hard.
    await waitFor(
      () => {
        try {
          return JSON.parse(readFileSync(file, 'utf8')).shell_port > 0;
        } catch {
          return false;
        }
      },
      { timeoutMs: 30_000, what: 'the connection file' },
    );
    expect(running(kernelPid)).toBe(true);
    parent.kill('SIGKILL');
    await waitFor(() => !running(kernelPid), { timeoutMs: 10_000, what: 'the orphaned kernel to exit' });
  });
});
