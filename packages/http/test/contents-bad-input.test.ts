import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v4Notebook } from '../../../testing/notebooks.js';
import { type Send, startServer, type TestServer, TRANSPORTS } from '../../../testing/server.js';
import { snapshotTree } from '../../../testing/temp.js';

interface Case {
  what: string;
  method: string;
  url: string;
  body?: string;
  headers?: Record<string, string>;
  status: number;
  reason?: string | null;
  message?: string | RegExp;
}

const nb = JSON.stringify(v4Notebook());
const text = (content: string) => JSON.stringify({ type: 'file', format: 'text', content });

const CASES: Case[] = [
  // malformed bodies and wrong types
  {
    what: 'malformed JSON',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{not json',
    status: 400,
    message: 'Invalid JSON in body of request',
  },
  {
    what: 'array body',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '[1,2]',
    status: 400,
    message: /must be a JSON object/,
  },
  { what: 'string POST body', method: 'POST', url: '/api/contents', body: '"x"', status: 400 },
  {
    what: 'type not a string',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"type":5,"format":"text","content":"x"}',
    status: 400,
    // one line naming the field, without valibot's terminal marks (× and →)
    message: /^Invalid request body: [^×→\n]* \(at type\)$/,
  },
  {
    what: 'null body',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: 'null',
    status: 400,
    message: /^Invalid request body: [^×→\n]+$/,
  },
  {
    what: 'content not a string',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"type":"file","format":"text","content":5}',
    status: 400,
    reason: 'bad format',
  },
  {
    what: 'chunk not a number',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"type":"file","format":"text","content":"x","chunk":"1"}',
    status: 400,
  },
  { what: 'PATCH path not a string', method: 'PATCH', url: '/api/contents/a.txt', body: '{"path":5}', status: 400 },
  {
    what: 'PATCH without body',
    method: 'PATCH',
    url: '/api/contents/a.txt',
    status: 400,
    message: 'JSON body missing',
  },
  {
    what: 'missing type',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"content":"x"}',
    status: 400,
    message: 'No file type provided',
  },
  {
    what: 'missing content',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"type":"file","format":"text"}',
    status: 400,
    message: 'No file content provided',
  },
  // unknown type / format
  {
    what: 'unknown body type',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"type":"bogus","content":"x"}',
    status: 400,
    reason: 'bad type',
  },
  // on a new path: not the new-file defaults (an unknown type is no empty text file here)
  {
    what: 'unknown type, no content, new path',
    method: 'PUT',
    url: '/api/contents/new.txt',
    body: '{"type":"nope"}',
    status: 400,
    reason: 'bad type',
    message: 'Unhandled contents type: nope',
  },
  {
    what: 'unknown type, no content, new notebook path',
    method: 'PUT',
    url: '/api/contents/new.ipynb',
    body: '{"type":"nope"}',
    status: 400,
    reason: 'bad type',
  },
  {
    what: 'unknown format of a new notebook',
    method: 'PUT',
    url: '/api/contents/new.ipynb',
    body: '{"type":"notebook","format":"nope"}',
    status: 400,
    reason: 'bad format',
    message: "Format 'nope' is invalid",
  },
  {
    what: 'unknown format of a notebook saved over',
    method: 'PUT',
    url: '/api/contents/n.ipynb',
    body: JSON.stringify({ type: 'notebook', format: 'nope', content: v4Notebook() }),
    status: 400,
    reason: 'bad format',
  },
  {
    what: 'file content a number, new path',
    method: 'PUT',
    url: '/api/contents/new.txt',
    body: '{"type":"file","content":1}',
    status: 400,
    reason: 'bad format',
  },
  {
    what: 'file content a number, text format, new path',
    method: 'PUT',
    url: '/api/contents/new.txt',
    body: '{"type":"file","format":"text","content":1}',
    status: 400,
    reason: 'bad format',
  },
  {
    what: 'unknown body format',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"type":"file","format":"hex","content":"x"}',
    status: 400,
    reason: 'bad format',
  },
  {
    what: 'unknown query type',
    method: 'GET',
    url: '/api/contents/a.txt?type=bogus',
    status: 400,
    message: "Type 'bogus' is invalid",
    reason: 'bad type',
  },
  {
    what: 'unknown query format',
    method: 'GET',
    url: '/api/contents/a.txt?format=hex',
    status: 400,
    reason: 'bad format',
  },
  {
    what: 'bad content flag',
    method: 'GET',
    url: '/api/contents/a.txt?content=yes',
    status: 400,
    message: "Content 'yes' is invalid",
  },
  {
    what: 'unknown POST type',
    method: 'POST',
    url: '/api/contents',
    body: '{"type":"bogus"}',
    status: 400,
    reason: 'bad type',
  },
  // content that does not match the format
  {
    what: 'invalid base64',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"type":"file","format":"base64","content":"@@@"}',
    status: 400,
    reason: 'bad format',
  },
  {
    what: 'binary as text',
    method: 'GET',
    url: '/api/contents/bin.dat?format=text',
    status: 400,
    reason: 'bad format',
    message: 'bin.dat is not UTF-8 encoded',
  },
  {
    what: 'directory over a file',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: '{"type":"directory"}',
    status: 400,
    message: 'Not a directory: a.txt',
  },
  { what: 'file over a directory', method: 'PUT', url: '/api/contents/sub', body: text('x'), status: 400 },
  // invalid notebooks
  {
    what: 'notebook content is a string',
    method: 'PUT',
    url: '/api/contents/n.ipynb',
    body: '{"type":"notebook","content":"nope"}',
    status: 400,
    reason: 'bad notebook',
  },
  {
    what: 'notebook without cells',
    method: 'PUT',
    url: '/api/contents/n.ipynb',
    body: '{"type":"notebook","content":{"nbformat":4}}',
    status: 400,
    reason: 'bad notebook',
  },
  {
    what: 'notebook from the future',
    method: 'PUT',
    url: '/api/contents/n.ipynb',
    body: '{"type":"notebook","content":{"nbformat":99,"nbformat_minor":0,"cells":[],"metadata":{}}}',
    status: 400,
    reason: 'bad notebook',
  },
  {
    what: 'notebook content null',
    method: 'PUT',
    url: '/api/contents/new.ipynb',
    body: '{"type":"notebook","content":null}',
    status: 400,
  },
  {
    what: 'unreadable notebook',
    method: 'GET',
    url: '/api/contents/broken.ipynb',
    status: 400,
    message: /^Unreadable Notebook: broken.ipynb/,
  },
  // paths escaping the root
  {
    what: 'dot-dot (normalized away by the URL parser)',
    method: 'GET',
    url: '/api/contents/../outside/secret.txt',
    status: 404,
  },
  {
    what: '%2e%2e (normalized away by the URL parser)',
    method: 'GET',
    url: '/api/contents/%2e%2e/outside/secret.txt',
    status: 404,
  },
  {
    what: 'dot-dot inside a segment with encoded slashes',
    method: 'GET',
    url: '/api/contents/..%2Foutside%2Fsecret.txt',
    status: 400,
    reason: 'bad path',
  },
  {
    what: 'encoded slash in PUT',
    method: 'PUT',
    url: '/api/contents/%2e%2e%2foutside%2fnew.txt',
    body: text('x'),
    status: 400,
    reason: 'bad path',
  },
  {
    what: 'encoded slash in a name',
    method: 'PUT',
    url: '/api/contents/sub%2Fc.txt',
    body: text('x'),
    status: 400,
    reason: 'bad path',
  },
  { what: 'encoded backslash', method: 'GET', url: '/api/contents/..%5Coutside', status: 400, reason: 'bad path' },
  { what: 'absolute path in URL', method: 'GET', url: '/api/contents//etc/passwd', status: 400, reason: 'bad path' },
  {
    what: 'absolute path in PUT URL',
    method: 'PUT',
    url: '/api/contents//tmp/nbserve-evil.txt',
    body: text('x'),
    status: 400,
    reason: 'bad path',
  },
  {
    what: 'NUL in a name',
    method: 'PUT',
    url: '/api/contents/a%00b.txt',
    body: text('x'),
    status: 400,
    reason: 'bad path',
  },
  { what: 'malformed percent-encoding', method: 'GET', url: '/api/contents/%zz', status: 400, reason: 'bad path' },
  {
    what: 'rename to ..',
    method: 'PATCH',
    url: '/api/contents/a.txt',
    body: '{"path":"../outside/x.txt"}',
    status: 400,
    reason: 'bad path',
  },
  {
    what: 'rename to absolute path',
    method: 'PATCH',
    url: '/api/contents/a.txt',
    body: '{"path":"//tmp/x.txt"}',
    status: 400,
    reason: 'bad path',
  },
  {
    what: 'rename to sub/../..',
    method: 'PATCH',
    url: '/api/contents/a.txt',
    body: '{"path":"sub/../../x.txt"}',
    status: 400,
    reason: 'bad path',
  },
  {
    what: 'copy from ..',
    method: 'POST',
    url: '/api/contents',
    body: '{"copy_from":"../outside/secret.txt"}',
    status: 400,
    reason: 'bad path',
  },
  {
    what: 'copy from an absolute path',
    method: 'POST',
    url: '/api/contents',
    body: '{"copy_from":"/etc/passwd"}',
    status: 404,
  },
  {
    what: 'copy into ..',
    method: 'POST',
    url: '/api/contents/sub/..%2F..',
    body: '{"copy_from":"a.txt"}',
    status: 400,
    reason: 'bad path',
  },
  { what: 'symlink to outside: directory', method: 'GET', url: '/api/contents/escape', status: 404 },
  { what: 'symlink to outside: file below', method: 'GET', url: '/api/contents/escape/secret.txt', status: 404 },
  { what: 'symlink to outside: file link', method: 'GET', url: '/api/contents/escape-file', status: 404 },
  {
    what: 'symlink to outside: write below',
    method: 'PUT',
    url: '/api/contents/escape/new.txt',
    body: text('x'),
    status: 404,
  },
  {
    what: 'symlink to outside: write through',
    method: 'PUT',
    url: '/api/contents/escape-file',
    body: text('pwned'),
    status: 403,
  },
  { what: 'symlink to outside: delete', method: 'DELETE', url: '/api/contents/escape-file', status: 404 },
  {
    what: 'symlink to outside: rename',
    method: 'PATCH',
    url: '/api/contents/escape-file',
    body: '{"path":"mine.txt"}',
    status: 404,
  },
  {
    what: 'symlink to outside: copy',
    method: 'POST',
    url: '/api/contents',
    body: '{"copy_from":"escape/secret.txt"}',
    status: 404,
  },
  { what: 'symlink to outside: checkpoint', method: 'POST', url: '/api/contents/escape-file/checkpoints', status: 404 },
  { what: 'symlink to outside: /files', method: 'GET', url: '/files/escape/secret.txt', status: 404 },
  { what: 'sibling dir sharing the root prefix', method: 'GET', url: '/api/contents/sib/s.txt', status: 404 },
  { what: 'sibling dir via /files', method: 'GET', url: '/files/sib/s.txt', status: 404 },
  {
    what: 'encoded slash via /files',
    method: 'GET',
    url: '/files/..%2Foutside%2Fsecret.txt',
    status: 400,
    reason: 'bad path',
  },
  // names with '/'
  {
    what: 'extension with a slash',
    method: 'POST',
    url: '/api/contents',
    body: '{"type":"file","ext":"/../../x"}',
    status: 400,
    reason: 'bad name',
  },
  {
    what: 'extension with a slash (notebook dir)',
    method: 'POST',
    url: '/api/contents/sub',
    body: '{"ext":"a/b"}',
    status: 400,
    reason: 'bad name',
  },
  // hidden files
  { what: 'hidden GET', method: 'GET', url: '/api/contents/.hidden.txt', status: 404 },
  { what: 'hidden PUT', method: 'PUT', url: '/api/contents/.hidden.txt', body: text('x'), status: 400 },
  { what: 'hidden DELETE', method: 'DELETE', url: '/api/contents/.hidden.txt', status: 400 },
  { what: 'rename to hidden', method: 'PATCH', url: '/api/contents/a.txt', body: '{"path":".a.txt"}', status: 400 },
  // every other way to create a hidden file is refused too, as in jupyter_server 2.x
  {
    what: 'PUT naming a hidden path in the body',
    method: 'PUT',
    url: '/api/contents/up.txt',
    body: JSON.stringify({ type: 'file', format: 'text', content: 'x', path: '.hidden.txt' }),
    status: 400,
    message: "Cannot create file or directory 'up.txt'",
  },
  {
    what: 'PUT naming a path in a hidden dir in the body',
    method: 'PUT',
    url: '/api/contents/up.txt',
    body: JSON.stringify({ type: 'file', format: 'text', content: 'x', path: '.hidden-dir/test.txt' }),
    status: 400,
  },
  {
    what: 'PUT with a path that is not a string',
    method: 'PUT',
    url: '/api/contents/up.txt',
    body: JSON.stringify({ type: 'file', format: 'text', content: 'x', path: 5 }),
    status: 400,
  },
  {
    what: 'PUT into a hidden dir',
    method: 'PUT',
    url: '/api/contents/.hidden-dir/up.txt',
    body: text('x'),
    status: 400,
  },
  {
    what: 'PUT a hidden dir',
    method: 'PUT',
    url: '/api/contents/sub/.made',
    body: '{"type":"directory"}',
    status: 400,
  },
  { what: 'PUT without body into a hidden dir', method: 'PUT', url: '/api/contents/.hidden-dir', status: 400 },
  { what: 'new untitled in a hidden dir', method: 'POST', url: '/api/contents/.hidden-dir', body: '{}', status: 400 },
  {
    what: 'copy from a hidden file',
    method: 'POST',
    url: '/api/contents',
    body: '{"copy_from":".hidden.txt"}',
    status: 400,
  },
  {
    what: 'copy from a hidden dir',
    method: 'POST',
    url: '/api/contents/sub',
    body: '{"copy_from":".hidden-dir/in.txt"}',
    status: 400,
  },
  {
    what: 'copy into a hidden dir',
    method: 'POST',
    url: '/api/contents/.hidden-dir',
    body: '{"copy_from":"a.txt"}',
    status: 400,
  },
  {
    what: 'rename a hidden file',
    method: 'PATCH',
    url: '/api/contents/.hidden.txt',
    body: '{"path":"shown.txt"}',
    status: 400,
  },
  {
    what: 'rename into a hidden dir',
    method: 'PATCH',
    url: '/api/contents/a.txt',
    body: '{"path":".hidden-dir/a.txt"}',
    status: 400,
  },
  { what: 'GET in a hidden dir', method: 'GET', url: '/api/contents/.hidden-dir/in.txt', status: 404 },
  { what: 'DELETE in a hidden dir', method: 'DELETE', url: '/api/contents/.hidden-dir/in.txt', status: 400 },
  { what: 'checkpoint of a hidden file', method: 'POST', url: '/api/contents/.hidden.txt/checkpoints', status: 404 },
  { what: 'checkpoint dir via the API', method: 'GET', url: '/api/contents/.ipynb_checkpoints', status: 404 },
  { what: 'hidden /files', method: 'GET', url: '/files/.hidden.txt', status: 404 },
  // state conflicts
  {
    what: 'rename onto an existing file',
    method: 'PATCH',
    url: '/api/contents/a.txt',
    body: '{"path":"n.ipynb"}',
    status: 409,
  },
  {
    what: 'delete non-empty dir',
    method: 'DELETE',
    url: '/api/contents/sub',
    status: 400,
    message: 'Directory sub not empty',
  },
  { what: 'delete the root', method: 'DELETE', url: '/api/contents', status: 400 },
  { what: 'POST to a file', method: 'POST', url: '/api/contents/a.txt', body: '{}', status: 400 },
  { what: 'PUT with copy_from', method: 'PUT', url: '/api/contents/z.txt', body: '{"copy_from":"a.txt"}', status: 400 },
  {
    what: 'stale If-Match',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: text('new'),
    headers: { 'If-Match': '"00"' },
    status: 409,
    reason: 'changed on disk',
  },
  {
    what: 'bad If-Unmodified-Since',
    method: 'PUT',
    url: '/api/contents/a.txt',
    body: text('new'),
    headers: { 'If-Unmodified-Since': 'soon' },
    status: 400,
  },
  // checkpoints
  {
    what: 'restore unknown checkpoint id',
    method: 'POST',
    url: '/api/contents/n.ipynb/checkpoints/nope',
    status: 404,
    message: 'Checkpoint does not exist: n.ipynb@nope',
  },
  {
    what: 'delete unknown checkpoint id',
    method: 'DELETE',
    url: '/api/contents/n.ipynb/checkpoints/nope',
    status: 404,
  },
  {
    what: 'checkpoints of a missing file',
    method: 'POST',
    url: '/api/contents/missing.ipynb/checkpoints',
    status: 404,
  },
  { what: 'checkpoint of a directory', method: 'POST', url: '/api/contents/sub/checkpoints', status: 400 },
  // A notebook on disk nested 100,000 levels deep read, then re-serialized, was a 500 (stack overflow).
  {
    what: 'notebook nested too deeply on disk',
    method: 'GET',
    url: '/api/contents/deep.ipynb',
    status: 400,
    reason: 'bad notebook',
    message: /^Unreadable Notebook: deep\.ipynb JSON nested more than 1000 levels deep/,
  },
  // missing things
  { what: 'missing file', method: 'GET', url: '/api/contents/missing.txt', status: 404 },
  { what: 'missing parent on PUT', method: 'PUT', url: '/api/contents/nodir/x.txt', body: text('x'), status: 404 },
  {
    what: 'rename a missing file',
    method: 'PATCH',
    url: '/api/contents/missing.txt',
    body: '{"path":"x.txt"}',
    status: 404,
  },
];

describe.each(TRANSPORTS)('bad input over %s: 4xx, Jupyter error body, tree unchanged', (kind) => {
  let fx: TestServer;
  let send: Send;
  let before: Record<string, string>;

  beforeAll(async () => {
    fx = await startServer();
    const { dir, root } = fx;
    await fs.writeFile(nodePath.join(root, 'a.txt'), 'A');
    await fs.writeFile(nodePath.join(root, 'bin.dat'), Buffer.from([0xff, 0xfe, 0]));
    await fs.writeFile(nodePath.join(root, 'n.ipynb'), nb);
    await fs.writeFile(nodePath.join(root, 'broken.ipynb'), '{"cells": [');
    await fs.writeFile(
      nodePath.join(root, 'deep.ipynb'),
      nb.replace('"metadata":{}', `"metadata":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`),
    );
    await fs.writeFile(nodePath.join(root, '.hidden.txt'), 'H');
    await fs.mkdir(nodePath.join(root, '.hidden-dir'));
    await fs.writeFile(nodePath.join(root, '.hidden-dir', 'in.txt'), 'I');
    await fs.mkdir(nodePath.join(root, 'sub'));
    await fs.writeFile(nodePath.join(root, 'sub', 'b.txt'), 'B');
    await fs.mkdir(nodePath.join(root, '.ipynb_checkpoints'));
    await fs.writeFile(nodePath.join(root, '.ipynb_checkpoints', 'n-checkpoint.ipynb'), nb);
    await fs.mkdir(nodePath.join(dir, 'outside'));
    await fs.writeFile(nodePath.join(dir, 'outside', 'secret.txt'), 'SECRET');
    await fs.mkdir(nodePath.join(dir, 'root-secret'));
    await fs.writeFile(nodePath.join(dir, 'root-secret', 's.txt'), 'SIBLING');
    await fs.symlink('../outside', nodePath.join(root, 'escape'));
    await fs.symlink(nodePath.join(dir, 'outside', 'secret.txt'), nodePath.join(root, 'escape-file'));
    await fs.symlink('../root-secret', nodePath.join(root, 'sib'));
    send = fx.send(kind);
    before = await contentsTrees();
  });
  afterAll(() => fx.close());

  /** The root and its neighbours; the app's own config and data dirs are not contents. */
  async function contentsTrees(): Promise<Record<string, string>> {
    const all = await snapshotTree(fx.dir);
    return Object.fromEntries(Object.entries(all).filter(([path]) => !/^(config|data)(\/|$)/.test(path)));
  }

  it.each(CASES)('$what: $method $url -> $status', async (c) => {
    const res = await send(c.url, {
      method: c.method,
      ...(c.body !== undefined ? { body: c.body } : {}),
      headers: { 'Content-Type': 'application/json', ...c.headers },
    });
    const raw = await res.text();
    expect(res.status, raw).toBe(c.status);
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    const body = JSON.parse(raw) as Record<string, unknown>;
    expect(typeof body.message).toBe('string');
    expect(body).toHaveProperty('reason');
    expect(body.reason === null || typeof body.reason === 'string').toBe(true);
    if (c.reason !== undefined) expect(body.reason).toBe(c.reason);
    if (typeof c.message === 'string') expect(body.message).toBe(c.message);
    else if (c.message) expect(body.message).toMatch(c.message);
    // never a stack trace, never an OS path, never the token
    expect(body.traceback ?? '').toBe('');
    expect(raw).not.toMatch(/\n\s+at /);
    expect(raw).not.toContain(fx.dir);
    expect(raw).not.toContain('SECRET');
    expect(await contentsTrees()).toEqual(before);
  });
});
