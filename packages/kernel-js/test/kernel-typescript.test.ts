// needs: kernel
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KernelClient, ofType, plain } from './kernel-client.js';

let kernel: KernelClient;

beforeAll(async () => {
  kernel = await KernelClient.launch({ language: 'typescript' });
  await kernel.ready();
});

afterAll(async () => {
  await kernel?.close();
});

const value = (r: Awaited<ReturnType<KernelClient['execute']>>) =>
  (ofType(r.iopub, 'execute_result')[0]?.content.data as Record<string, string> | undefined)?.['text/plain'];

describe('typescript kernel', () => {
  it('reports TypeScript language_info', async () => {
    const { reply } = await kernel.request('shell', 'kernel_info_request', {});
    expect(reply.content.language_info).toMatchObject({
      name: 'typescript',
      mimetype: 'text/typescript',
      file_extension: '.ts',
      codemirror_mode: { name: 'javascript', typescript: true },
    });
  });

  it('strips annotations, interfaces, enums and import type, sharing one scope across cells', async () => {
    const defined = await kernel.execute(
      [
        "import type { Stats } from 'node:fs';",
        "import { basename } from 'node:path';",
        'interface Shape { area(): number }',
        'enum Color { Red = 1, Green }',
        'class Square implements Shape {',
        '  constructor(private readonly side: number) {}',
        '  area(): number { return this.side ** 2 }',
        '}',
        'const shapes: Shape[] = [new Square(3)];',
        'type Maybe<T> = T | undefined;',
        'let unused: Maybe<Stats> = undefined;',
      ].join('\n'),
    );
    expect(defined.reply.content.status).toBe('ok');
    const used = await kernel.execute(
      'const total: number = shapes.reduce((s, x) => s + x.area(), 0);\n[total, Color.Green, basename("/a/b.ts")]',
    );
    expect(value(used)).toBe("[ 9, 2, 'b.ts' ]");
  });

  it('supports generics, satisfies and top-level await', async () => {
    const r = await kernel.execute(
      'function first<T>(xs: readonly T[]): T | undefined { return xs[0] }\nconst cfg = { port: 1 } satisfies Record<string, number>;\nawait Promise.resolve(first<number>([cfg.port, 2]))',
    );
    expect(value(r)).toBe('1');
  });

  it('maps runtime errors back to the TypeScript line', async () => {
    const r = await kernel.execute(
      'interface Boom {\n  reason: string;\n}\n\nfunction explode(b: Boom): never {\n  throw new Error(b.reason);\n}\nexplode({ reason: "ts line 6" });',
    );
    const count = r.reply.content.execution_count;
    expect(r.reply.content).toMatchObject({ status: 'error', ename: 'Error', evalue: 'ts line 6' });
    const text = plain(r.reply.content.traceback);
    expect(text).toContain(`at explode (Cell In[${count}], line 6)`);
    expect(text).toContain(`at Cell In[${count}], line 8`);
  });

  it('turns a TypeScript syntax error into an error reply', async () => {
    const r = await kernel.execute('const ok: number = 1;\nconst broken: = 2;');
    expect(r.reply.content).toMatchObject({ status: 'error', ename: 'SyntaxError' });
    expect(plain(r.reply.content.traceback)).toContain(`Cell In[${r.reply.content.execution_count}], line 2`);
    // Nothing of the broken cell ran.
    expect(value(await kernel.execute('typeof ok'))).toBe("'undefined'");
  });
});
