import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jupyterError, startServer, type TestServer } from '../../../testing/server.js';

describe('/rstservice/render', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => s.close());

  it('POST renders reST with docutils into a sandboxed standalone document (socket and in-process)', async () => {
    for (const send of [s.fetch, s.request]) {
      const res = await send('/rstservice/render', {
        method: 'POST',
        body: 'Title\n=====\n\nSome *emphasis* and ``code``.\n\n.. raw:: html\n\n   <script>alert(1)</script>\n',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toMatch(/^sandbox;/);
      const html = await res.text();
      expect(html).toContain('<title>Title</title>');
      expect(html).toContain('<em>emphasis</em>');
      expect(html).not.toMatch(/<script/i);
    }
  });

  it('GET takes the source from ?text=', async () => {
    const res = await s.fetch(`/rstservice/render?text=${encodeURIComponent('- one\n- two\n')}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/<li>(<p>)?one(<\/p>)?<\/li>/);
  });

  it('oversized reST is a 413 with a Jupyter error body', async () => {
    const res = await s.fetch('/rstservice/render', { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect((await jupyterError(res)).message).toMatch(/larger than/);
  });

  it('needs authentication', async () => {
    const res = await s.fetch('/rstservice/render', { method: 'POST', body: 'x', auth: false });
    expect(res.status).toBe(403);
  });
});

describe('/rstservice/render without docutils', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ docutilsPython: '/nonexistent/python3' });
  });
  afterAll(async () => s.close());

  it('falls back to the built-in renderer, still sanitized', async () => {
    const res = await s.fetch('/rstservice/render', {
      method: 'POST',
      body: 'Head\n====\n\n`x <javascript:alert(1)>`_ **b**\n',
    });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1 id="head">Head</h1>');
    expect(html).toContain('<strong>b</strong>');
    expect(html).not.toContain('javascript:');
  });
});
