// needs: kernel
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelClient, ofType, plain, streamText } from './kernel-client.js';

let kernel: KernelClient;

beforeAll(async () => {
  kernel = await KernelClient.launch();
  // A package resolvable only from the notebook's folder (the kernel's cwd).
  const pkg = path.join(kernel.dir, 'node_modules', 'local-pkg');
  await mkdir(pkg, { recursive: true });
  await writeFile(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: 'local-pkg', type: 'module', exports: { '.': { import: './m.js' } } }),
  );
  await writeFile(
    path.join(pkg, 'm.js'),
    'export const answer = 42; export default function hello(n) { return "hello " + n; }\n',
  );
  await kernel.ready();
});

afterAll(async () => {
  await kernel?.close();
});

function result(messages: { header: { msg_type: string }; content: Record<string, unknown> }[]): string | undefined {
  const data = ofType(messages as never, 'execute_result')[0]?.content.data as Record<string, string> | undefined;
  return data?.['text/plain'];
}

describe('execute', () => {
  it('answers kernel_info with the language, protocol 5.3 and implementation', async () => {
    const { reply, iopub } = await kernel.request('shell', 'kernel_info_request', {});
    expect(reply.header.msg_type).toBe('kernel_info_reply');
    expect(reply.content.protocol_version).toBe('5.3');
    expect(reply.content.implementation).toBe('nbserve-kernel-js');
    expect(reply.content.language_info).toMatchObject({
      name: 'javascript',
      version: process.versions.node,
      mimetype: 'text/javascript',
      file_extension: '.js',
      codemirror_mode: 'javascript',
    });
    expect(ofType(iopub, 'status').map((m) => m.content.execution_state)).toEqual(['busy', 'idle']);
  });

  it('publishes busy, execute_input, execute_result, idle in order and counts executions', async () => {
    const first = await kernel.execute('1 + 1');
    expect(first.reply.content).toMatchObject({ status: 'ok', user_expressions: {}, payload: [] });
    const count = first.reply.content.execution_count as number;
    expect(first.iopub.map((m) => m.header.msg_type)).toEqual(['status', 'execute_input', 'execute_result', 'status']);
    expect(first.iopub[1]?.content).toEqual({ code: '1 + 1', execution_count: count });
    expect(first.iopub[2]?.content).toMatchObject({ data: { 'text/plain': '2' }, execution_count: count });
    const second = await kernel.execute('"x"');
    expect(second.reply.content.execution_count).toBe(count + 1);
    expect(result(second.iopub)).toBe("'x'");
  });

  it('keeps let, const, class and function declarations across cells, and allows re-running them', async () => {
    await kernel.execute(
      'const a = 1;\nlet b = 2;\nclass Point { constructor(x) { this.x = x } }\nfunction twice(n) { return 2 * n }',
    );
    const again = await kernel.execute('const a = 10; let b = 20;');
    expect(again.reply.content.status).toBe('ok');
    const use = await kernel.execute('twice(a + b) + new Point(1).x');
    expect(result(use.iopub)).toBe('61');
  });

  it('supports top-level await, keeping declarations made after an await', async () => {
    const r = await kernel.execute(
      'const later = await new Promise((r) => setTimeout(() => r(7), 20));\nfunction f7() { return later }\nlater * 6',
    );
    expect(result(r.iopub)).toBe('42');
    expect(result((await kernel.execute('f7() + later')).iopub)).toBe('14');
  });

  it('awaits a promise that is the value of the last expression', async () => {
    const r = await kernel.execute('Promise.resolve({ ok: true })');
    expect(result(r.iopub)).toBe('{ ok: true }');
  });

  it('imports node: builtins and packages resolvable from the notebook folder, statically and dynamically', async () => {
    const r = await kernel.execute(
      "import os from 'node:os';\nimport { join } from 'node:path';\nimport hello, { answer } from 'local-pkg';\n[typeof os.cpus, join('a', 'b'), hello(answer)]",
    );
    expect(r.reply.content.status).toBe('ok');
    expect(result(r.iopub)).toBe("[ 'function', 'a/b', 'hello 42' ]");
    const again = await kernel.execute("hello('again') + (await import('node:path')).sep");
    expect(result(again.iopub)).toBe("'hello again/'");
  });

  it('streams console output to stdout and stderr', async () => {
    const r = await kernel.execute(
      'console.log("out", { a: 1 }); console.info("info"); console.warn("warn"); console.error("err")',
    );
    expect(streamText(r.iopub, 'stdout')).toBe('out { a: 1 }\ninfo\n');
    expect(streamText(r.iopub, 'stderr')).toBe('warn\nerr\n');
    expect(ofType(r.iopub, 'execute_result')).toHaveLength(0);
  });

  it('streams megabytes of output in bounded chunks', async () => {
    const r = await kernel.execute(
      'console.log("y".repeat(3_000_000)); for (let i = 0; i < 20000; i++) console.log(i);',
    );
    const streams = ofType(r.iopub, 'stream');
    const text = streamText(r.iopub);
    expect(text.length).toBe(3_000_001 + Array.from({ length: 20000 }, (_, i) => `${i}\n`).join('').length);
    expect(Math.max(...streams.map((m) => (m.content.text as string).length))).toBeLessThanOrEqual(64 * 1024);
    // Coalesced: far fewer messages than console.log calls.
    expect(streams.length).toBeLessThan(200);
  });

  it('prints circular objects, Symbols, BigInts and huge arrays', async () => {
    expect(result((await kernel.execute('const c = { name: "c" }; c.self = c; c')).iopub)).toBe(
      "<ref *1> { name: 'c', self: [Circular *1] }",
    );
    expect(result((await kernel.execute('Symbol("s")')).iopub)).toBe('Symbol(s)');
    expect(result((await kernel.execute('2n ** 100n')).iopub)).toBe('1267650600228229401496703205376n');
    const huge = result((await kernel.execute('Array.from({ length: 1e6 }, (_, i) => i)')).iopub) ?? '';
    expect(huge).toContain('... 999900 more items');
    expect(huge.length).toBeLessThan(2000);
    expect(ofType((await kernel.execute('undefined')).iopub, 'execute_result')).toHaveLength(0);
  });

  it('reports errors with the cell line numbers, and keeps the kernel usable', async () => {
    const r = await kernel.execute(
      'const ok = 1;\nfunction inner() {\n  throw new RangeError("too far");\n}\ninner();',
    );
    expect(r.reply.content).toMatchObject({ status: 'error', ename: 'RangeError', evalue: 'too far' });
    const count = r.reply.content.execution_count;
    const error = ofType(r.iopub, 'error')[0];
    expect(error?.content).toMatchObject({ ename: 'RangeError', evalue: 'too far' });
    const text = plain(error?.content.traceback);
    expect(text).toContain(`at inner (Cell In[${count}], line 3)`);
    expect(text).toContain(`at Cell In[${count}], line 5`);
    expect(text).toContain('--->   3   throw new RangeError("too far");');
    expect(text).not.toContain('engine/worker');
    expect(result((await kernel.execute('ok')).iopub)).toBe('1');
  });

  it('maps line numbers of errors thrown after a top-level await', async () => {
    const r = await kernel.execute('await null;\n\nnull.boom;');
    const count = r.reply.content.execution_count;
    expect(r.reply.content.ename).toBe('TypeError');
    expect(plain(r.reply.content.traceback)).toContain(`Cell In[${count}], line 3`);
  });

  it('turns a syntax error into an error reply with the position', async () => {
    const r = await kernel.execute('const fine = 1;\nlet = = 2;');
    expect(r.reply.content).toMatchObject({ status: 'error', ename: 'SyntaxError' });
    const text = plain(r.reply.content.traceback);
    expect(text).toContain(`Cell In[${r.reply.content.execution_count}], line 2`);
    expect(text).toContain('let = = 2;');
  });

  it('reports non-Error throws and rejected promises', async () => {
    const str = await kernel.execute('throw "plain string"');
    expect(str.reply.content).toMatchObject({ status: 'error', ename: 'Uncaught', evalue: "'plain string'" });
    const sym = await kernel.execute('throw Symbol("odd")');
    expect(sym.reply.content.evalue).toBe('Symbol(odd)');
    const obj = await kernel.execute('const loop = {}; loop.loop = loop; throw loop');
    expect(obj.reply.content.evalue).toBe('<ref *1> { loop: [Circular *1] }');
    const rejected = await kernel.execute('await Promise.reject(new TypeError("nope"))');
    expect(rejected.reply.content).toMatchObject({ status: 'error', ename: 'TypeError', evalue: 'nope' });
    const unhandled = await kernel.execute(
      'Promise.reject(new Error("unawaited")); await new Promise((r) => setTimeout(r, 50));',
    );
    expect(unhandled.reply.content).toMatchObject({ status: 'error', evalue: 'unawaited' });
  });

  it('aborts cells queued behind an error when stop_on_error is set', async () => {
    const failing = await kernel.send('shell', 'execute_request', {
      code: 'await new Promise((r) => setTimeout(r, 200)); throw new Error("first")',
      stop_on_error: true,
    });
    const queued = await kernel.send('shell', 'execute_request', { code: 'globalThis.sideEffect = 1' });
    const [a, b] = await Promise.all([kernel.pending.get(failing), kernel.pending.get(queued)]);
    expect(a?.content.status).toBe('error');
    expect(b?.content.status).toBe('aborted');
    expect(result((await kernel.execute('typeof sideEffect')).iopub)).toBe("'undefined'");
    const noStop = await kernel.send('shell', 'execute_request', {
      code: 'throw new Error("x")',
      stop_on_error: false,
    });
    const runs = await kernel.send('shell', 'execute_request', { code: '"ran"' });
    expect((await kernel.pending.get(noStop))?.content.status).toBe('error');
    expect((await kernel.pending.get(runs))?.content.status).toBe('ok');
  });

  it('honours silent and store_history, and evaluates user_expressions', async () => {
    const before = (await kernel.execute('0')).reply.content.execution_count as number;
    const silent = await kernel.execute('console.log("quiet"); 5', { silent: true });
    expect(ofType(silent.iopub, 'execute_input')).toHaveLength(0);
    expect(ofType(silent.iopub, 'execute_result')).toHaveLength(0);
    expect(silent.reply.content.execution_count).toBe(before);
    const noHistory = await kernel.execute('6', { store_history: false });
    expect(noHistory.reply.content.execution_count).toBe(before);
    const empty = await kernel.execute('  \n');
    expect(empty.reply.content).toMatchObject({ status: 'ok', execution_count: before });
    const withExpr = await kernel.execute('const ue = 3', {
      user_expressions: { doubled: 'ue * 2', bad: 'nope.nope' },
    });
    const expressions = withExpr.reply.content.user_expressions as Record<string, Record<string, unknown>>;
    expect(expressions.doubled).toMatchObject({ status: 'ok', data: { 'text/plain': '6' } });
    expect(expressions.bad).toMatchObject({ status: 'error', ename: 'ReferenceError' });
  });
});

describe('rich display', () => {
  it('publishes display_data for display() and its mime helpers', async () => {
    const r = await kernel.execute(
      [
        'display({ a: 1 })',
        'display.html("<b>bold</b>")',
        'display.markdown("# Title")',
        'display.svg("<svg xmlns=\\"http://www.w3.org/2000/svg\\"></svg>")',
        'display.png(Buffer.from([137, 80, 78, 71]))',
        'display.jpeg("/9j/4AAQ")',
        'display.json({ list: [1, 2] })',
        'display.latex("$x^2$")',
      ].join('\n'),
    );
    const data = ofType(r.iopub, 'display_data').map((m) => m.content.data as Record<string, unknown>);
    expect(data).toHaveLength(8);
    expect(data[0]).toEqual({ 'text/plain': '{ a: 1 }' });
    expect(data[1]?.['text/html']).toBe('<b>bold</b>');
    expect(data[2]?.['text/markdown']).toBe('# Title');
    expect(data[3]?.['image/svg+xml']).toContain('<svg');
    expect(data[4]?.['image/png']).toBe(Buffer.from([137, 80, 78, 71]).toString('base64'));
    expect(data[5]?.['image/jpeg']).toBe('/9j/4AAQ');
    expect(data[6]?.['application/json']).toEqual({ list: [1, 2] });
    expect(data[7]?.['text/latex']).toBe('$x^2$');
    expect(ofType(r.iopub, 'execute_result')).toHaveLength(0);
  });

  it('updates a display by display_id', async () => {
    const r = await kernel.execute(
      'const h = display.html("<i>0%</i>", { display_id: "progress" });\nh.update("done")',
    );
    const shown = ofType(r.iopub, 'display_data')[0];
    const updated = ofType(r.iopub, 'update_display_data')[0];
    expect(shown?.content.transient).toEqual({ display_id: 'progress' });
    expect(updated?.content).toMatchObject({ data: { 'text/plain': "'done'" }, transient: { display_id: 'progress' } });
    const again = await kernel.execute('display("again", { display_id: "progress", update: true })');
    expect(ofType(again.iopub, 'update_display_data')).toHaveLength(1);
  });

  it('renders objects with a jupyter.mimebundle method as their bundle', async () => {
    const r = await kernel.execute(
      "({ [Symbol.for('jupyter.mimebundle')]() { return { 'text/html': '<table></table>', 'text/plain': 'a table' } } })",
    );
    expect(ofType(r.iopub, 'execute_result')[0]?.content.data).toEqual({
      'text/html': '<table></table>',
      'text/plain': 'a table',
    });
  });

  it('clears output', async () => {
    const r = await kernel.execute('console.log(1); display.clear(true)');
    expect(ofType(r.iopub, 'clear_output')[0]?.content).toEqual({ wait: true });
  });
});
