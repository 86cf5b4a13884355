// needs: kernel
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import * as protocol from '@nbserve/core/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as zmq from 'zeromq';
import { KernelClient, ofType, plain, streamText } from './kernel-client.js';

let kernel: KernelClient;

beforeAll(async () => {
  kernel = await KernelClient.launch();
  await kernel.ready();
});

afterAll(async () => {
  await kernel?.close();
});

describe('introspection', () => {
  it('completes global names and properties of the expression before the dot', async () => {
    await kernel.execute('const myObject = { alpha: 1, alpine: 2, beta: 3 }; const myOther = 1;');
    const globals = await kernel.request('shell', 'complete_request', { code: 'const y = myO', cursor_pos: 13 });
    expect(globals.reply.content).toMatchObject({ status: 'ok', cursor_start: 10, cursor_end: 13 });
    expect(globals.reply.content.matches).toEqual(expect.arrayContaining(['myObject', 'myOther']));
    const props = await kernel.request('shell', 'complete_request', { code: 'myObject.al', cursor_pos: 11 });
    expect(props.reply.content).toMatchObject({ matches: ['alpha', 'alpine'], cursor_start: 9, cursor_end: 11 });
    const methods = await kernel.request('shell', 'complete_request', { code: '"abc".toUp', cursor_pos: 10 });
    expect(methods.reply.content.matches).toEqual(['toUpperCase']);
    // Cursor positions count code points, not UTF-16 units.
    const emoji = await kernel.request('shell', 'complete_request', { code: '"😀"; myObject.be', cursor_pos: 16 });
    expect(emoji.reply.content).toMatchObject({ matches: ['beta'], cursor_start: 14, cursor_end: 16 });
  });

  it('answers completion on hostile objects (throwing proxies and getters) without hanging', async () => {
    await kernel.execute(
      'const hostile = new Proxy({}, { ownKeys() { throw new Error("no keys") }, has() { throw new Error("no has") }, getPrototypeOf() { throw new Error("no proto") } });\nconst getter = { get boom() { throw new Error("getter") }, fine: 1 };',
    );
    const a = await kernel.request('shell', 'complete_request', { code: 'hostile.x', cursor_pos: 9 });
    expect(a.reply.content).toMatchObject({ status: 'ok', matches: [] });
    const b = await kernel.request('shell', 'complete_request', { code: 'getter.', cursor_pos: 7 });
    expect(b.reply.content.matches).toEqual(expect.arrayContaining(['boom', 'fine']));
    const c = await kernel.request('shell', 'inspect_request', { code: 'getter.boom', cursor_pos: 10 });
    expect(c.reply.content.status).toBe('ok');
  });

  it('inspects the name under the cursor', async () => {
    await kernel.execute('function greet(name, greeting = "hi") {\n  return greeting + " " + name;\n}');
    const fn = await kernel.request('shell', 'inspect_request', { code: 'greet("x")', cursor_pos: 3, detail_level: 0 });
    expect(fn.reply.content).toMatchObject({ status: 'ok', found: true });
    const text = (fn.reply.content.data as Record<string, string>)['text/plain'];
    expect(text).toContain('greet: function');
    expect(text).toContain('function greet(name, greeting = "hi")');
    const obj = await kernel.request('shell', 'inspect_request', { code: 'myObject.alpha', cursor_pos: 14 });
    expect((obj.reply.content.data as Record<string, string>)['text/plain']).toBe('myObject.alpha: number\n1');
    const missing = await kernel.request('shell', 'inspect_request', { code: 'notDefinedAnywhere', cursor_pos: 5 });
    expect(missing.reply.content).toMatchObject({ status: 'ok', found: false });
  });

  it('tells complete, incomplete (with indent) and invalid code apart', async () => {
    const check = async (code: string) =>
      (await kernel.request('shell', 'is_complete_request', { code })).reply.content;
    expect(await check('let a = 1')).toEqual({ status: 'complete' });
    expect(await check('function f() {\n')).toEqual({ status: 'incomplete', indent: '  ' });
    expect(await check('call(a, [1,')).toEqual({ status: 'incomplete', indent: '    ' });
    expect(await check('const s = `unterminated')).toMatchObject({ status: 'incomplete' });
    expect(await check('const s = "{ not a bracket"; (')).toEqual({ status: 'incomplete', indent: '  ' });
    expect(await check('let = = 1; foo')).toEqual({ status: 'invalid' });
  });

  it('returns this session history and an empty comm_info', async () => {
    const marker = `"history-${randomUUID()}"`;
    const r = await kernel.execute(marker);
    const count = r.reply.content.execution_count as number;
    const tail = await kernel.request('shell', 'history_request', {
      hist_access_type: 'tail',
      n: 1,
      output: false,
      raw: true,
    });
    expect(tail.reply.content).toMatchObject({ status: 'ok', history: [[1, count, marker]] });
    const search = await kernel.request('shell', 'history_request', {
      hist_access_type: 'search',
      pattern: '"history-*',
    });
    expect(search.reply.content.history).toEqual([[1, count, marker]]);
    const range = await kernel.request('shell', 'history_request', {
      hist_access_type: 'range',
      session: 0,
      start: count,
      stop: count + 1,
    });
    expect(range.reply.content.history).toEqual([[1, count, marker]]);
    const comms = await kernel.request('shell', 'comm_info_request', {});
    expect(comms.reply.content).toEqual({ status: 'ok', comms: {} });
  });
});

describe('usage_request (control), as ipykernel answers it for jupyter-resource-usage', () => {
  it('answers with its own CPU and memory and the host’s, on control even while a cell spins', async () => {
    const first = await kernel.request('control', 'usage_request', {}, 5000);
    expect(first.reply.header.msg_type).toBe('usage_reply');
    // First answer: CPU 0 and no host_cpu_percent, as psutil's first measurement.
    expect(first.reply.content).toMatchObject({ kernel_cpu: 0, cpu_count: os.cpus().length, hostname: os.hostname() });
    expect(first.reply.content).not.toHaveProperty('host_cpu_percent');
    const loop = await kernel.send('shell', 'execute_request', {
      code: 'const until = Date.now() + 600; while (Date.now() < until) {}',
    });
    await new Promise((r) => setTimeout(r, 300)); // real time under test: CPU the spinning cell used
    const second = await kernel.request('control', 'usage_request', {}, 5000);
    const content = second.reply.content as Record<string, unknown>;
    expect(content.kernel_cpu).toBeGreaterThan(0);
    expect(content.kernel_memory).toBeGreaterThan(10 * 1024 * 1024);
    expect(content.pid).toEqual(expect.any(Number));
    expect(Object.keys(content.host_virtual_memory as object)).toEqual(
      expect.arrayContaining(['total', 'available', 'percent', 'used', 'free']),
    );
    await kernel.pending.get(loop);
  });
});

describe('interrupt', () => {
  it('stops a synchronous infinite loop and keeps the variables', async () => {
    await kernel.execute('let kept = "still here"');
    const started = Date.now();
    const loop = await kernel.send('shell', 'execute_request', { code: 'while (true) {}' });
    await kernel.iopubOf(loop, 'execute_input');
    // Control stays responsive while the loop spins.
    const info = await kernel.request('control', 'kernel_info_request', {}, 5000);
    expect(info.reply.content.status).toBe('ok');
    const interrupted = await kernel.request('control', 'interrupt_request', {}, 5000);
    expect(interrupted.reply.content).toEqual({ status: 'ok' });
    const reply = await kernel.pending.get(loop);
    expect(reply?.content).toMatchObject({ status: 'error', ename: 'KeyboardInterrupt' });
    expect(Date.now() - started).toBeLessThan(5000);
    const after = await kernel.execute('kept');
    expect(ofType(after.iopub, 'execute_result')[0]?.content.data).toEqual({ 'text/plain': "'still here'" });
  });

  it('stops a pending await', async () => {
    const pending = await kernel.send('shell', 'execute_request', { code: 'await new Promise(() => {})' });
    await kernel.iopubOf(pending, 'execute_input');
    await kernel.request('control', 'interrupt_request', {}, 5000);
    expect((await kernel.pending.get(pending))?.content).toMatchObject({ status: 'error', ename: 'KeyboardInterrupt' });
    expect((await kernel.execute('1')).reply.content.status).toBe('ok');
  });

  it('stops a loop that floods output, and delivers what was printed', async () => {
    const loop = await kernel.send('shell', 'execute_request', { code: 'let n = 0;\nwhile (true) console.log(n++);' });
    await kernel.iopubOf(loop, 'stream');
    await kernel.request('control', 'interrupt_request', {}, 10_000);
    expect((await kernel.pending.get(loop))?.content).toMatchObject({ status: 'error', ename: 'KeyboardInterrupt' });
    const printed = streamText(await kernel.iopubUntilIdle(loop));
    expect(printed.startsWith('0\n1\n2\n')).toBe(true);
    expect((await kernel.execute('n > 0')).reply.content.status).toBe('ok');
  });

  for (const schedule of ['setTimeout(spin, 50)', 'setImmediate(spin)', 'process.nextTick(spin)']) {
    it(`frees the kernel from a busy loop started by ${schedule.replace('(spin', '(fn')} after its cell finished`, async () => {
      await kernel.execute(`globalThis.spin = () => { for (;;) {} };\nsetTimeout(() => ${schedule}, 20); "scheduled"`);
      // Real time: a busy loop tells nobody it began, nor that a request waits behind it.
      await new Promise((r) => setTimeout(r, 300));
      const blocked = await kernel.send('shell', 'execute_request', { code: '"after the loop"' });
      await new Promise((r) => setTimeout(r, 300));
      await kernel.request('control', 'interrupt_request', {}, 10_000);
      const reply = await kernel.pending.get(blocked);
      expect(reply?.content.status).toBe('ok');
      expect((await kernel.execute('kept')).reply.content.status).toBe('ok');
    });
  }

  it('stops a loop that runs after an await, on SIGINT to the process group', async () => {
    const loop = await kernel.send('shell', 'execute_request', { code: 'await null;\nfor (;;) {}' });
    await kernel.iopubOf(loop, 'execute_input');
    process.kill(-(kernel.child?.pid as number), 'SIGINT');
    expect((await kernel.pending.get(loop))?.content).toMatchObject({ status: 'error', ename: 'KeyboardInterrupt' });
    expect((await kernel.execute('kept')).reply.content.status).toBe('ok');
  });
});

describe('stdin', () => {
  it('input() sends input_request to the requesting client and resolves with the reply', async () => {
    kernel.onInputRequest = (m) => `answer to ${m.content.prompt}`;
    const r = await kernel.execute('const got = await input("name?"); got.toUpperCase()');
    expect(kernel.stdinRequests.at(-1)?.content).toEqual({ prompt: 'name?', password: false });
    expect(ofType(r.iopub, 'execute_result')[0]?.content.data).toEqual({ 'text/plain': "'ANSWER TO NAME?'" });
    await kernel.execute('await input("secret", { password: true })');
    expect(kernel.stdinRequests.at(-1)?.content).toEqual({ prompt: 'secret', password: true });
  });

  it('delivers input_request to a client whose stdin socket connects late', async () => {
    const identity = `late-${randomUUID()}`;
    const shell = new zmq.Dealer({ routingId: identity, linger: 0 });
    shell.connect(`tcp://${kernel.info.ip}:${kernel.info.shell_port}`);
    const request = protocol.createMessage(
      'execute_request',
      { code: '(await input("late?")) + "!"', silent: false, store_history: true, allow_stdin: true },
      { session: identity },
    );
    await shell.send(kernel.sign(request));
    await new Promise((r) => setTimeout(r, 500)); // real time under test: stdin connects after the kernel asked
    const stdin = new zmq.Dealer({ routingId: identity, linger: 0 });
    stdin.connect(`tcp://${kernel.info.ip}:${kernel.info.stdin_port}`);
    const [...frames] = await stdin.receive();
    const asked = protocol.fromRaw(protocol.decodeWire(frames).raw);
    expect(asked.header.msg_type).toBe('input_request');
    expect(asked.content).toEqual({ prompt: 'late?', password: false });
    await stdin.send(
      kernel.sign(protocol.createMessage('input_reply', { value: 'yes' }, { session: identity, parent: asked.header })),
    );
    const reply = protocol.fromRaw(protocol.decodeWire(await shell.receive()).raw);
    expect(reply.content.status).toBe('ok');
    const results = await kernel.iopubUntilIdle(request.header.msg_id);
    expect(ofType(results, 'execute_result')[0]?.content.data).toEqual({ 'text/plain': "'yes!'" });
    shell.close();
    stdin.close();
  });

  it('input() fails cleanly when the frontend does not allow stdin', async () => {
    const r = await kernel.execute('await input("x")', { allow_stdin: false });
    expect(r.reply.content).toMatchObject({ status: 'error' });
    expect(String(r.reply.content.evalue)).toContain('input() is not available');
  });
});

describe('wire', () => {
  it('welcomes each new iopub subscriber (iopub_welcome)', async () => {
    const sub = new zmq.Subscriber({ linger: 0 });
    sub.subscribe('');
    sub.connect(`tcp://${kernel.info.ip}:${kernel.info.iopub_port}`);
    const welcome = protocol.fromRaw(protocol.decodeWire(await sub.receive()).raw);
    expect(welcome.header.msg_type).toBe('iopub_welcome');
    expect(welcome.content).toEqual({ subscription: '' });
    sub.close();
  });

  it('echoes heartbeats', async () => {
    const hb = new zmq.Request();
    hb.linger = 0;
    hb.connect(`tcp://${kernel.info.ip}:${kernel.info.hb_port}`);
    await hb.send('ping-123');
    const [echo] = await hb.receive();
    expect(echo?.toString()).toBe('ping-123');
    hb.close();
  });

  it('ignores messages with a bad signature or malformed frames, then keeps serving', async () => {
    const msg = protocol.createMessage(
      'execute_request',
      { code: 'globalThis.forged = true', silent: false },
      { session: kernel.session },
    );
    const frames = kernel.sign(msg);
    frames[1] = Buffer.from('0'.repeat(64));
    await kernel.sendRawFrames(frames);
    await kernel.sendRawFrames([Buffer.from('garbage')]);
    await kernel.sendRawFrames([protocol.DELIMITER, Buffer.from('sig'), Buffer.from('{not json')]);
    // A correctly signed message replayed verbatim is dropped as well.
    const replayed = protocol.createMessage(
      'execute_request',
      { code: 'globalThis.replays = (globalThis.replays ?? 0) + 1' },
      { session: kernel.session },
    );
    const signed = kernel.sign(replayed);
    await kernel.sendRawFrames(signed);
    await kernel.sendRawFrames(signed);
    // (the shell channel is ordered: this request runs after everything sent above was handled)
    const r = await kernel.execute('[typeof forged, replays]');
    expect(ofType(r.iopub, 'execute_result')[0]?.content.data).toEqual({ 'text/plain': "[ 'undefined', 1 ]" });
  });

  it('attributes late output of timers to the last cell run', async () => {
    const r = await kernel.execute('setTimeout(() => console.log("late"), 50); "started"');
    const parent = r.reply.parent_header as protocol.MessageHeader;
    await kernel.iopubOf(parent.msg_id, 'stream');
    const late = kernel.received.filter(
      (m) => (m.parent_header as protocol.MessageHeader).msg_id === parent.msg_id && m.header.msg_type === 'stream',
    );
    expect(streamText(late)).toBe('late\n');
  });

  it('reports an error thrown in a timer after its cell finished', async () => {
    const r = await kernel.execute('setTimeout(() => { throw new Error("from timer") }, 20); 1');
    const parent = (r.reply.parent_header as protocol.MessageHeader).msg_id;
    await kernel.iopubOf(parent, 'error');
    const errors = kernel.received.filter(
      (m) => (m.parent_header as protocol.MessageHeader).msg_id === parent && m.header.msg_type === 'error',
    );
    expect(plain(errors[0]?.content.traceback)).toContain('from timer');
    expect((await kernel.execute('2')).reply.content.status).toBe('ok');
  });
});
