// needs: kernel
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import {
  type Kernel,
  KernelManager,
  type KernelMessage,
  KernelSpecManager,
  SessionManager,
} from '@jupyterlab/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../../testing/kernel-cases.js';
import { startServer, type TestServer } from '../../../testing/server.js';

let fx: TestServer;
let noPython: TestServer;

beforeAll(async () => {
  fx = await startServer({ floodKernels: true });
  // A machine without Python: no python3 kernelspec anywhere.
  noPython = await startServer({ kernelSpecDirs: [] });
});
afterAll(async () => {
  await fx?.close();
  await noPython?.close();
});

/** The mime bundle of the first output of a type. */
function dataOf(r: Awaited<ReturnType<typeof execute>>, type: string): Record<string, unknown> | undefined {
  return (r.of(type)[0]?.content as { data?: Record<string, unknown> } | undefined)?.data;
}

describe('built-in kernelspecs through nbserve', () => {
  it('are always listed, with logos served under /kernelspecs/', async () => {
    const specs = new KernelSpecManager({ serverSettings: fx.jupyterSettings() });
    await specs.ready;
    expect(specs.specs?.default).toBe('python3');
    const js = specs.specs?.kernelspecs.javascript;
    expect(js).toMatchObject({ display_name: 'JavaScript (Node.js)', language: 'javascript' });
    expect(specs.specs?.kernelspecs.typescript?.language).toBe('typescript');
    expect(js?.resources['logo-64x64']).toBe('/kernelspecs/javascript/logo-64x64.png');
    const logo = await fx.fetch('kernelspecs/typescript/logo-64x64.png');
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    specs.dispose();
  });

  it('make javascript the default when there is no python3', async () => {
    const specs = new KernelSpecManager({ serverSettings: noPython.jupyterSettings() });
    await specs.ready;
    expect(specs.specs?.default).toBe('javascript');
    expect(Object.keys(specs.specs?.kernelspecs ?? {}).sort()).toEqual(['javascript', 'typescript']);
    specs.dispose();
  });
});

describe('@jupyterlab/services against the javascript kernel', () => {
  let manager: KernelManager;
  let kernel: Kernel.IKernelConnection;

  beforeAll(async () => {
    manager = new KernelManager({ serverSettings: noPython.jupyterSettings() });
    await manager.ready;
    // POST /api/kernels without a name starts the default kernel: javascript here.
    kernel = await manager.startNew();
    await kernel.info;
  });
  afterAll(async () => {
    await kernel?.shutdown().catch(() => {});
    manager?.dispose();
  });

  it('reports kernel info and executes with state, output and rich display', async () => {
    expect(kernel.name).toBe('javascript');
    const info = await kernel.info;
    expect(info.language_info.name).toBe('javascript');
    await execute(kernel, 'const items = [1, 2, 3]');
    const r = await execute(
      kernel,
      'console.log("n =", items.length); display.markdown("**md**"); items.map((x) => x * x)',
    );
    expect(r.reply.content.status).toBe('ok');
    expect(r.of('stream')[0]?.content).toMatchObject({ name: 'stdout', text: 'n = 3\n' });
    expect(dataOf(r, 'display_data')?.['text/markdown']).toBe('**md**');
    expect(dataOf(r, 'execute_result')).toEqual({
      'text/plain': '[ 1, 4, 9 ]',
    });
  });

  it('reports errors with cell line numbers', async () => {
    const r = await execute(kernel, 'const ok = 1;\nundefinedFunction();');
    expect(r.reply.content.status).toBe('error');
    const error = r.of('error')[0]?.content as KernelMessage.IErrorMsg['content'];
    expect(error.ename).toBe('ReferenceError');
    const count = r.reply.content.execution_count;
    expect(stripVTControlCharacters(error.traceback.join('\n'))).toContain(`Cell In[${count}], line 2`);
  });

  it('completes, inspects and answers is_complete', async () => {
    const completion = await kernel.requestComplete({ code: 'items.fil', cursor_pos: 9 });
    expect(completion.content).toMatchObject({ status: 'ok', matches: ['fill', 'filter'] });
    const inspected = await kernel.requestInspect({ code: 'items', cursor_pos: 2, detail_level: 0 });
    expect(inspected.content).toMatchObject({ status: 'ok', found: true });
    const complete = await kernel.requestIsComplete({ code: 'if (x) {' });
    expect(complete.content).toEqual({ status: 'incomplete', indent: '  ' });
  });

  it('asks for input over stdin', async () => {
    const r = await execute(kernel, '(await input("who? ")).toUpperCase()', (msg) => {
      expect((msg.content as KernelMessage.IInputRequestMsg['content']).prompt).toBe('who? ');
      kernel.sendInputReply({ status: 'ok', value: 'ada' }, msg.header as never);
    });
    expect(dataOf(r, 'execute_result')).toEqual({
      'text/plain': "'ADA'",
    });
  });

  it('interrupts while (true) {} through the REST interrupt and keeps the variables', async () => {
    const future = kernel.requestExecute({ code: 'while (true) {}' });
    await new Promise<void>((running) => {
      future.onIOPub = (msg) => {
        if (msg.header.msg_type === 'execute_input') running();
      };
    });
    await kernel.interrupt();
    const reply = (await future.done) as KernelMessage.IExecuteReplyMsg;
    expect(reply.content).toMatchObject({ status: 'error', ename: 'KeyboardInterrupt' });
    const after = await execute(kernel, 'items.length');
    expect(dataOf(after, 'execute_result')).toEqual({
      'text/plain': '3',
    });
  });

  it('restarts into a fresh scope', async () => {
    await kernel.restart();
    const r = await execute(kernel, 'typeof items');
    expect(dataOf(r, 'execute_result')).toEqual({
      'text/plain': "'undefined'",
    });
  });
});

describe('a notebook session on the typescript kernel', () => {
  it('runs TypeScript cells in the notebook folder', async () => {
    await mkdir(path.join(noPython.root, 'sub'), { recursive: true });
    const kernelManager = new KernelManager({ serverSettings: noPython.jupyterSettings() });
    const sessions = new SessionManager({ kernelManager, serverSettings: noPython.jupyterSettings() });
    await sessions.ready;
    const session = await sessions.startNew({
      path: 'sub/analysis.ipynb',
      type: 'notebook',
      name: 'analysis.ipynb',
      kernel: { name: 'typescript' },
    });
    const kernel = session.kernel as Kernel.IKernelConnection;
    const r = await execute(
      kernel,
      'const dir: string = process.cwd();\ninterface P { x: number }\nconst p: P = { x: 2 };\n[dir.endsWith("sub"), p.x]',
    );
    expect(dataOf(r, 'execute_result')).toEqual({
      'text/plain': '[ true, 2 ]',
    });
    await session.shutdown();
    sessions.dispose();
    kernelManager.dispose();
  });
});
