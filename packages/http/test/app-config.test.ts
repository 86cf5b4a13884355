import { promises as fs } from 'node:fs';
import path from 'node:path';
import { recursiveUpdate } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { type RunningServer, serve } from '../src/serve.js';

const auth = { Authorization: `token ${TOKEN}`, 'content-type': 'application/json' };

type Send = (target: string, init?: RequestInit) => Promise<Response>;

/** The same cases run in-process and against a listening server. */
function configCases(name: string, setup: () => Promise<{ send: Send; dir: () => string; done: () => Promise<void> }>) {
  describe(`/api/config (${name})`, () => {
    let send: Send;
    let dir: () => string;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ send, dir, done } = await setup());
    });
    afterAll(() => done());
    const sectionFile = (section: string) => path.join(dir(), 'config', 'nbconfig', `${section}.json`);

    it('a missing section reads as {}', async () => {
      const res = await send('/api/config/notebook', { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({});
    });

    it('PUT replaces (204), GET reads it back, the file is JSON on disk', async () => {
      const put = await send('/api/config/notebook', {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ load_extensions: { a: true }, Cell: { cm_config: { lineNumbers: true } } }),
      });
      expect(put.status).toBe(204);
      expect(await put.text()).toBe('');
      const got = await (await send('/api/config/notebook', { headers: auth })).json();
      expect(got).toEqual({ load_extensions: { a: true }, Cell: { cm_config: { lineNumbers: true } } });
      expect(JSON.parse(await fs.readFile(sectionFile('notebook'), 'utf8'))).toEqual(got);
    });

    it('PATCH merges deeply, null deletes, and returns the merged object', async () => {
      const res = await send('/api/config/notebook', {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({ load_extensions: { b: false, a: null }, Cell: { cm_config: { tabSize: 2 } }, x: [1] }),
      });
      expect(res.status).toBe(200);
      const merged = { load_extensions: { b: false }, Cell: { cm_config: { lineNumbers: true, tabSize: 2 } }, x: [1] };
      expect(await res.json()).toEqual(merged);
      expect(await (await send('/api/config/notebook', { headers: auth })).json()).toEqual(merged);
    });

    it('PATCH prunes objects the merge leaves empty (Notebook 6.4 test_modify)', async () => {
      const sample = { foo: 'bar', baz: 73, sub: { a: 6, b: 7 }, sub2: { c: 8 } };
      await send('/api/config/modify', { method: 'PUT', headers: auth, body: JSON.stringify(sample) });
      const res = await send('/api/config/modify', {
        method: 'PATCH',
        headers: auth,
        body: JSON.stringify({ foo: null, baz: 75, wib: [1, 2, 3], sub: { a: 8, b: null, d: 9 }, sub2: { c: null } }),
      });
      expect(res.status).toBe(200);
      const merged = { baz: 75, wib: [1, 2, 3], sub: { a: 8, d: 9 } };
      expect(await res.json()).toEqual(merged);
      expect(JSON.parse(await fs.readFile(sectionFile('modify'), 'utf8'))).toEqual(merged);
    });

    it('PATCH on a new section creates it', async () => {
      const res = await send('/api/config/tree-1', { method: 'PATCH', headers: auth, body: '{"k":1}' });
      expect(await res.json()).toEqual({ k: 1 });
    });

    it.each([
      ['malformed JSON', '{"a":', 400],
      ['an array', '[1,2]', 400],
      ['a string', '"x"', 400],
      ['null', 'null', 400],
      ['an empty body', '', 400],
    ])('refuses %s with 400 and keeps the section', async (_what, body, status) => {
      const before = await fs.readFile(sectionFile('notebook'), 'utf8');
      for (const method of ['PUT', 'PATCH']) {
        const res = await send('/api/config/notebook', { method, headers: auth, body });
        expect(res.status).toBe(status);
        const error = await res.json();
        expect(error).toMatchObject({ message: expect.any(String), reason: null });
        expect(JSON.stringify(error)).not.toMatch(/at .*\.ts|node_modules/);
      }
      expect(await fs.readFile(sectionFile('notebook'), 'utf8')).toBe(before);
    });

    it.each(['..', '.hidden', 'a..b', '%2E%2E%2Fescape', 'x%00y', 'a%2Fb', 'a%5Cb', `${'x'.repeat(200)}`])(
      'refuses the section name %s without touching the disk',
      async (section) => {
        const res = await send(`/api/config/${section}`, { method: 'PUT', headers: auth, body: '{"pwned":1}' });
        expect([400, 404]).toContain(res.status);
        expect(await res.json()).toMatchObject({ message: expect.any(String) });
        const files = await fs.readdir(path.join(dir(), 'config', 'nbconfig'));
        expect(files.every((file) => /^(notebook|tree-1|modify)\.json$/.test(file))).toBe(true);
        await expect(fs.access(path.join(dir(), 'config', 'escape.json'))).rejects.toThrow();
      },
    );

    it('concurrent PATCHes all land (updates are serialized)', async () => {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          send('/api/config/many', { method: 'PATCH', headers: auth, body: JSON.stringify({ [`k${i}`]: i }) }),
        ),
      );
      const all = await (await send('/api/config/many', { headers: auth })).json();
      expect(Object.keys(all)).toHaveLength(20);
    });
  });
}

configCases('in-process', async () => {
  const f: TestApp = await createTestApp();
  return {
    send: (t, init) => Promise.resolve(f.app.request(`http://localhost${t}`, init)),
    dir: () => f.dir,
    done: f.close,
  };
});

configCases('real server', async () => {
  const f: TestApp = await createTestApp();
  const running: RunningServer = await serve({
    root: `${f.dir}/root`,
    configDir: `${f.dir}/config`,
    dataDir: `${f.dir}/data`,
    token: TOKEN,
    logger: f.logger,
    port: 0,
  });
  return {
    send: (t, init) => fetch(`${running.url}${t.slice(1)}`, init),
    dir: () => f.dir,
    done: async () => {
      await running.close();
      await f.close();
    },
  };
});

describe('recursiveUpdate', () => {
  it('matches Jupyter semantics and does not mutate its inputs', () => {
    const target = { a: { b: 1, c: { d: 2 } }, e: 3 };
    const update = { a: { c: { d: null, f: 4 } }, e: { g: 5 } };
    expect(recursiveUpdate(target, update)).toEqual({ a: { b: 1, c: { f: 4 } }, e: { g: 5 } });
    expect(target).toEqual({ a: { b: 1, c: { d: 2 } }, e: 3 });
  });

  it('prunes objects the merge leaves empty and keeps no nulls, as jupyter_server (Notebook 6.4 test_modify)', () => {
    const sample = { foo: 'bar', baz: 73, sub: { a: 6, b: 7 }, sub2: { c: 8 } };
    const update = { foo: null, baz: 75, wib: [1, 2, 3], sub: { a: 8, b: null, d: 9 }, sub2: { c: null } };
    expect(recursiveUpdate(sample, update)).toEqual({ baz: 75, wib: [1, 2, 3], sub: { a: 8, d: 9 } });
    // a new object is merged into {}: its nulls are not stored, and an empty result is not kept
    expect(recursiveUpdate({}, { n: { x: null, y: { z: null } }, e: {} })).toEqual({});
    expect(recursiveUpdate({ kept: {} }, { kept: {} })).toEqual({});
    expect(recursiveUpdate({}, { n: { x: null, y: 1 } })).toEqual({ n: { y: 1 } });
  });
});
