/**
 * The `@jupyterlab/services` kernel and session cases every kernel backend must pass: local
 * kernels, and kernels on a gateway (jupyter_server or a second nbserve) behind nbserve. Call
 * `describeJupyterlabKernelCases` in a test file with a target that is ready in `beforeAll`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { type Kernel, KernelManager, type KernelMessage, type Session, SessionManager } from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from './server.js';
import { waitFor } from './wait.js';

export interface KernelCaseTarget {
  /** The nbserve the cases talk to (`startServer()`): its `jupyterSettings`, `fetch` and log. */
  server: Pick<TestServer, 'jupyterSettings' | 'fetch' | 'logger'>;
  /** Kills the kernel's process with SIGKILL from outside, wherever it runs on this machine. */
  killKernelProcess(kernelId: string): Promise<void>;
  /** Whether a session's kernel sees `JPY_SESSION_NAME` (local kernels do; gateways do not forward it). */
  sessionNameInEnv: boolean;
}

/** Runs `code` through a `@jupyterlab/services` kernel connection; the reply and every iopub message of the request. */
export async function execute(
  kernel: Kernel.IKernelConnection,
  code: string,
  onStdin?: (msg: KernelMessage.IStdinMessage) => void,
) {
  const future = kernel.requestExecute({ code, allow_stdin: onStdin !== undefined });
  const iopub: KernelMessage.IIOPubMessage[] = [];
  future.onIOPub = (msg) => {
    iopub.push(msg);
  };
  if (onStdin) future.onStdin = onStdin;
  const reply = (await future.done) as KernelMessage.IExecuteReplyMsg;
  return { reply, iopub, of: (type: string) => iopub.filter((m) => m.header.msg_type === type) };
}

/**
 * The pid of the process whose command line names `kernel-<id>.json`: the connection file of a
 * kernel started by nbserve or jupyter_server under that id.
 */
export function kernelPidByConnectionFile(kernelId: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes(`kernel-${kernelId}.json`)) return Number(entry);
  }
  throw new Error(`no process runs kernel ${kernelId}`);
}

/**
 * Resolves once the kernel answered kernel_info; a kernel that goes dead or whose connection is
 * given up first (its start failed: @jupyterlab/services would wait forever) fails at once, with
 * what the server logged.
 */
async function readyOrDead(kernel: Kernel.IKernelConnection, server: Pick<TestServer, 'logger'>): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const stop = () => {
      kernel.statusChanged.disconnect(onStatus);
      kernel.connectionStatusChanged.disconnect(onConnection);
    };
    const fail = (what: string) => {
      stop();
      reject(
        new Error(`kernel ${kernel.id} ${what} before it was ready; server log:\n${server.logger.lines.join('\n')}`),
      );
    };
    const onStatus = (_: unknown, status: Kernel.Status) => {
      if (status === 'dead') fail('died');
    };
    const onConnection = (_: unknown, status: Kernel.ConnectionStatus) => {
      if (status === 'disconnected') fail('was disconnected');
    };
    kernel.statusChanged.connect(onStatus);
    kernel.connectionStatusChanged.connect(onConnection);
    kernel.info.then(() => {
      stop();
      resolve();
    }, reject);
  });
}

/** Execution, streams, errors, stdin, interrupt, restart, an outside kill, shutdown and sessions, with python3. */
export function describeJupyterlabKernelCases(title: string, target: () => KernelCaseTarget): void {
  for (const protocolName of ['v1', 'json'] as const) {
    describe(`${title}: @jupyterlab/services KernelManager over the ${protocolName} protocol`, () => {
      let manager: KernelManager;
      let kernel: Kernel.IKernelConnection;

      beforeAll(async () => {
        manager = new KernelManager({
          serverSettings: target().server.jupyterSettings({ jsonOnly: protocolName === 'json' }),
        });
        await manager.ready;
        kernel = await manager.startNew({ name: 'python3' });
        await kernel.info;
      });
      afterAll(() => {
        manager.dispose();
      });

      it('negotiates the framing', () => {
        expect((kernel as unknown as { _selectedProtocol: string })._selectedProtocol).toBe(
          protocolName === 'v1' ? 'v1.kernel.websocket.jupyter.org' : '',
        );
      });

      it('executes 1+1 -> 2, streams output and reports errors with tracebacks', async () => {
        const sum = await execute(kernel, '1+1');
        expect(sum.reply.content.status).toBe('ok');
        expect(sum.of('execute_result')[0]?.content).toMatchObject({ data: { 'text/plain': '2' } });

        const printed = await execute(kernel, 'import sys\nprint("out")\nprint("err", file=sys.stderr)');
        const streams = printed.of('stream').map((m) => m.content as KernelMessage.IStreamMsg['content']);
        expect(streams).toEqual(
          expect.arrayContaining([
            { name: 'stdout', text: 'out\n' },
            { name: 'stderr', text: 'err\n' },
          ]),
        );

        const failed = await execute(kernel, '1/0');
        expect(failed.reply.content.status).toBe('error');
        const error = failed.of('error')[0]?.content as KernelMessage.IErrorMsg['content'];
        expect(error.ename).toBe('ZeroDivisionError');
        expect(error.traceback.join('\n')).toContain('ZeroDivisionError');
      });

      it('answers input() over stdin', async () => {
        const run = await execute(kernel, 'name = input("who? ")\nprint("hi", name)', (msg) => {
          expect(msg.header.msg_type).toBe('input_request');
          kernel.sendInputReply({ status: 'ok', value: `nbserve-${protocolName}` }, msg.header as never);
        });
        // ipykernel may split one print into several stream messages.
        const text = run
          .of('stream')
          .map((m) => (m.content as { text: string }).text)
          .join('');
        expect(text).toBe(`hi nbserve-${protocolName}\n`);
      });

      it('interrupts while True: pass', async () => {
        const future = kernel.requestExecute({ code: 'while True: pass' });
        await waitFor(() => kernel.status === 'busy');
        await kernel.interrupt();
        const reply = (await future.done.catch((e) => e)) as KernelMessage.IExecuteReplyMsg;
        expect(reply.content.status).toBe('error');
        expect((reply.content as { ename?: string }).ename).toBe('KeyboardInterrupt');
      });

      it('restarts: state is lost, the kernel keeps its id and works', async () => {
        await execute(kernel, 'marker = 1');
        const id = kernel.id;
        await kernel.restart();
        await kernel.info;
        expect(kernel.id).toBe(id);
        const after = await execute(kernel, "print('marker' in dir())");
        expect(after.of('stream')[0]?.content).toMatchObject({ text: 'False\n' });
      });

      // Through a gateway, the `idle` after its auto-restart used to be lost now and then (its
      // subscription to the new kernel joins late); the bridge now nudges until iopub answers.
      it('sees restarting then idle when the kernel process is killed from outside, and works again', {
        timeout: 240_000,
      }, async () => {
        const statuses: string[] = [];
        const onStatus = (_: unknown, status: string) => {
          statuses.push(status);
        };
        kernel.statusChanged.connect(onStatus);
        await target().killKernelProcess(kernel.id);
        // A gateway's restarter polls (jupyter_server: every 3 s) and then starts a new ipykernel:
        // room for that on a loaded machine.
        const restart = { timeoutMs: 90_000 };
        await waitFor(() => statuses.includes('autorestarting') || statuses.includes('restarting'), restart);
        await waitFor(() => {
          const at = Math.max(statuses.lastIndexOf('autorestarting'), statuses.lastIndexOf('restarting'));
          return statuses.slice(at + 1).includes('idle');
        }, restart);
        kernel.statusChanged.disconnect(onStatus);
        const after = await execute(kernel, '21*2');
        expect(after.of('execute_result')[0]?.content).toMatchObject({ data: { 'text/plain': '42' } });
      });

      it('shuts down: the kernel disappears from the server', async () => {
        const id = kernel.id;
        await kernel.shutdown();
        expect((await target().server.fetch(`api/kernels/${id}`)).status).toBe(404);
      });
    });
  }

  describe(`${title}: @jupyterlab/services SessionManager`, () => {
    it('creates a notebook session with a kernel, finds it by path, renames, and shuts down', async () => {
      const { server, sessionNameInEnv } = target();
      const sessions = new SessionManager({
        serverSettings: server.jupyterSettings(),
        kernelManager: new KernelManager({ serverSettings: server.jupyterSettings() }),
      });
      await sessions.ready;
      const start = async () => {
        const started = await sessions.startNew({
          path: 'work/a.ipynb',
          name: 'a.ipynb',
          type: 'notebook',
          kernel: { name: 'python3' },
        });
        await readyOrDead(started.kernel as Kernel.IKernelConnection, server);
        return started;
      };
      let session: Session.ISessionConnection;
      try {
        session = await start();
      } catch (error) {
        // A kernel that failed to start is not what this case is about: in a full test run a
        // gateway's kernel has lost its ports to another kernel's start. One more start, said out loud.
        console.warn(`starting the session again: ${(error as Error).message}`);
        for (const { id } of await (await server.fetch('api/sessions')).json()) {
          await server.fetch(`api/sessions/${id}`, { method: 'DELETE' });
        }
        session = await start();
      }
      const kernel = session.kernel as Kernel.IKernelConnection;
      const run = await execute(kernel, 'import os; print(os.environ.get("JPY_SESSION_NAME"))');
      expect(run.of('stream')[0]?.content).toMatchObject({ text: sessionNameInEnv ? 'work/a.ipynb\n' : 'None\n' });
      const found = await sessions.findByPath('work/a.ipynb');
      expect(found?.id).toBe(session.id);
      await session.setPath('work/b.ipynb');
      const model = await (await server.fetch(`api/sessions/${session.id}`)).json();
      expect(model).toMatchObject({ path: 'work/b.ipynb', type: 'notebook', notebook: { path: 'work/b.ipynb' } });
      await session.shutdown();
      expect((await server.fetch(`api/kernels/${kernel.id}`)).status).toBe(404);
      expect(await (await server.fetch('api/sessions')).json()).toEqual([]);
      sessions.dispose();
    }, 180_000);
  });
}
