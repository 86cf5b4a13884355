// needs: kernel
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelHarness, runOnClient } from '../../../testing/kernels.js';
import { waitFor, waitUntil } from '../../../testing/wait.js';
import { isProcessAlive, type Kernel, protocol } from '../src/index.js';

let h: Awaited<ReturnType<typeof createKernelHarness>>;
let kernel: Kernel;

beforeAll(async () => {
  h = await createKernelHarness();
  kernel = await h.manager.start({ name: 'python3', path: 'sub/nb.ipynb', env: { JPY_SESSION_NAME: 'sub/nb.ipynb' } });
});
afterAll(async () => {
  await h.dispose();
});

describe('KernelManager with a real ipykernel', () => {
  it('starts ready, with a 0600 connection file in the runtime dir and a pid record', () => {
    const model = kernel.model();
    expect(model).toMatchObject({ id: kernel.id, name: 'python3', execution_state: 'idle', connections: 0 });
    expect(model.last_activity).toMatch(/Z$/);
    const file = path.join(h.runtimeDir, `kernel-${kernel.id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).key).toBe(kernel.connectionInfo?.key);
    expect(existsSync(path.join(h.runtimeDir, `nbserve-kernel-${kernel.id}.pid.json`))).toBe(true);
    expect(h.manager.list().map((k) => k.id)).toEqual([kernel.id]);
  });

  it('executes code, routes the reply to the asking client only, and tracks busy/idle', async () => {
    const a = kernel.createClient();
    const b = kernel.createClient();
    const seenByB: string[] = [];
    b.onMessage = (_c, raw) => seenByB.push(protocol.peekMsgType(raw.header));
    const { reply, iopub } = await runOnClient(kernel, a, 'execute_request', {
      code: 'import os; print(os.getcwd(), os.environ.get("JPY_SESSION_NAME"), os.environ.get("JPY_PARENT_PID")); 1+1',
      silent: false,
    });
    expect(reply.header.msg_type).toBe('execute_reply');
    expect(reply.content.status).toBe('ok');
    const result = iopub.find((m) => m.header.msg_type === 'execute_result');
    expect(result?.content.data).toEqual({ 'text/plain': '2' });
    const stream = iopub.find((m) => m.header.msg_type === 'stream');
    expect(stream?.content.text).toBe(`${h.root} sub/nb.ipynb ${process.pid}\n`);
    expect(seenByB).toEqual([]);
    expect(kernel.executionState).toBe('idle');
    a.close();
    b.close();
  });

  it('delivers input_request on stdin to the client that asked and accepts its input_reply', async () => {
    const client = kernel.createClient();
    const { iopub } = await runOnClient(
      kernel,
      client,
      'execute_request',
      { code: 'x = input("name? "); print("hello", x)', allow_stdin: true },
      {
        onStdin: (msg) => {
          expect(msg.header.msg_type).toBe('input_request');
          expect(msg.content.prompt).toBe('name? ');
          client.send(
            'stdin',
            protocol.toRaw(
              protocol.createMessage('input_reply', { value: 'nbserve' }, { session: 'c', parent: msg.header }),
            ),
          );
        },
      },
    );
    expect(iopub.filter((m) => m.header.msg_type === 'stream').map((m) => m.content.text)).toEqual(['hello nbserve\n']);
    client.close();
  });

  it('answers a heartbeat', async () => {
    expect(await kernel.heartbeat(5000)).toBe(true);
  });

  it('interrupts a busy loop with SIGINT to the process group', async () => {
    const client = kernel.createClient();
    const running = runOnClient(kernel, client, 'execute_request', { code: 'while True: pass' });
    await waitFor(() => kernel.executionState === 'busy', { what: 'the loop running' });
    expect(kernel.executionState).toBe('busy');
    await h.manager.interrupt(kernel.id);
    const { reply, iopub } = await running;
    expect(reply.content.status).toBe('error');
    expect(iopub.find((m) => m.header.msg_type === 'error')?.content.ename).toBe('KeyboardInterrupt');
    client.close();
  });

  it('restarts in place: same id, new process, clients reattached, state back to idle', async () => {
    const client = kernel.createClient();
    await runOnClient(kernel, client, 'execute_request', { code: 'a = 41' });
    const oldPid = kernel.process?.pid as number;
    const restarted = await h.manager.restart(kernel.id);
    expect(restarted.id).toBe(kernel.id);
    expect(kernel.process?.pid).not.toBe(oldPid);
    expect(isProcessAlive(oldPid)).toBe(false);
    expect(kernel.executionState).toBe('idle');
    const { iopub } = await runOnClient(kernel, client, 'execute_request', { code: "print('a' in dir())" });
    expect(iopub.find((m) => m.header.msg_type === 'stream')?.content.text).toBe('False\n');
    client.close();
  });

  it('auto-restarts a kernel killed from outside: restarting, then idle and working', async () => {
    const events: string[] = [];
    const off = kernel.onLifecycle((e) => events.push(e));
    const client = kernel.createClient();
    const pid = kernel.process?.pid as number;
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => events.includes('restarted'), { intervalMs: 100 });
    expect(events).toEqual(['restarting', 'restarted']);
    expect(kernel.executionState).toBe('idle');
    expect(h.warnings.some((w) => w.includes('died unexpectedly'))).toBe(true);
    const { reply } = await runOnClient(kernel, client, 'execute_request', { code: '6*7' });
    expect(reply.content.status).toBe('ok');
    off();
    client.close();
  });

  it('shuts down: process gone, connection file and pid record removed, id unknown', async () => {
    const pid = kernel.process?.pid as number;
    await h.manager.shutdown(kernel.id);
    expect(isProcessAlive(pid)).toBe(false);
    expect(existsSync(path.join(h.runtimeDir, `kernel-${kernel.id}.json`))).toBe(false);
    expect(existsSync(path.join(h.runtimeDir, `nbserve-kernel-${kernel.id}.pid.json`))).toBe(false);
    expect(() => h.manager.get(kernel.id)).toThrow(/Kernel does not exist/);
  });
});
