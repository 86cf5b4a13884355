import {
  type Kernel,
  KernelManager,
  type KernelMessage,
  KernelSpecManager,
  SessionManager,
} from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../../testing/kernels.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

let fx: TestServer;

beforeAll(async () => {
  fx = await startServer({ floodKernels: true });
});
afterAll(async () => {
  await fx.close();
});

describe('@jupyterlab/services KernelSpecManager', () => {
  it('lists python3 as default with resources under /kernelspecs/', async () => {
    const specs = new KernelSpecManager({ serverSettings: fx.jupyterSettings() });
    await specs.ready;
    expect(specs.specs?.default).toBe('python3');
    const python = specs.specs?.kernelspecs.python3;
    expect(python?.display_name).toBe('Python 3 (ipykernel)');
    expect(python?.resources['logo-64x64']).toBe('/kernelspecs/python3/logo-64x64.png');
    expect(Object.keys(specs.specs?.kernelspecs ?? {}).sort()).toEqual([
      'flood',
      'javascript',
      'mute',
      'python3',
      'typescript',
    ]);
    const logo = await fx.fetch('kernelspecs/python3/logo-64x64.png');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect((await logo.arrayBuffer()).byteLength).toBeGreaterThan(100);
    specs.dispose();
  });
});

for (const protocolName of ['v1', 'json'] as const) {
  describe(`@jupyterlab/services KernelManager over the ${protocolName} protocol`, () => {
    let manager: KernelManager;
    let kernel: Kernel.IKernelConnection;

    beforeAll(async () => {
      manager = new KernelManager({ serverSettings: fx.jupyterSettings({ jsonOnly: protocolName === 'json' }) });
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

    it('sees restarting then idle when the kernel process is killed from outside, and works again', async () => {
      const statuses: string[] = [];
      const onStatus = (_: unknown, status: string) => {
        statuses.push(status);
      };
      kernel.statusChanged.connect(onStatus);
      const pid = fx.app.services.kernels.get(kernel.id).process?.pid as number;
      process.kill(pid, 'SIGKILL');
      await waitFor(() => statuses.includes('autorestarting') || statuses.includes('restarting'));
      await waitFor(() => {
        const at = Math.max(statuses.lastIndexOf('autorestarting'), statuses.lastIndexOf('restarting'));
        return statuses.slice(at + 1).includes('idle');
      });
      kernel.statusChanged.disconnect(onStatus);
      const after = await execute(kernel, '21*2');
      expect(after.of('execute_result')[0]?.content).toMatchObject({ data: { 'text/plain': '42' } });
    });

    it('shuts down: the kernel disappears from the server', async () => {
      const id = kernel.id;
      await kernel.shutdown();
      expect((await fx.fetch(`api/kernels/${id}`)).status).toBe(404);
    });
  });
}

describe('@jupyterlab/services SessionManager', () => {
  it('creates a notebook session with a kernel, finds it by path, renames, and shuts down', async () => {
    const sessions = new SessionManager({
      serverSettings: fx.jupyterSettings(),
      kernelManager: new KernelManager({ serverSettings: fx.jupyterSettings() }),
    });
    await sessions.ready;
    const session = await sessions.startNew({
      path: 'work/a.ipynb',
      name: 'a.ipynb',
      type: 'notebook',
      kernel: { name: 'python3' },
    });
    const kernel = session.kernel as Kernel.IKernelConnection;
    await kernel.info;
    const run = await execute(kernel, 'import os; print(os.environ["JPY_SESSION_NAME"])');
    expect(run.of('stream')[0]?.content).toMatchObject({ text: 'work/a.ipynb\n' });
    const found = await sessions.findByPath('work/a.ipynb');
    expect(found?.id).toBe(session.id);
    await session.setPath('work/b.ipynb');
    const model = await (await fx.fetch(`api/sessions/${session.id}`)).json();
    expect(model).toMatchObject({ path: 'work/b.ipynb', type: 'notebook', notebook: { path: 'work/b.ipynb' } });
    await session.shutdown();
    expect((await fx.fetch(`api/kernels/${kernel.id}`)).status).toBe(404);
    expect(await (await fx.fetch('api/sessions')).json()).toEqual([]);
    sessions.dispose();
  });
});
