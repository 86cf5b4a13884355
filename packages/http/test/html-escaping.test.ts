import { promises as fs } from 'node:fs';
import path from 'node:path';
import { escapeHtml, jsonForScript } from '@nbserve/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

/**
 * Every server-rendered page, fed names, paths and messages built to break out of HTML: nothing
 * in the answer may become markup, an event handler or a script URL.
 */

const TEXT_NAME = "x'onmouseover='alert(1)'.txt";
const NB_NAME = `"><svg onload=alert(2)>'.ipynb`;
const SCRIPT_NAME = '<script>alert(3)<!--\u2028\u2029&amp;.ipynb';
const DIR_NAME = `d'"<i onclick=alert(4)>&x`;
const PAYLOAD = `'"><svg onload=alert(5)>`;

const AUTH = { authorization: `token ${TOKEN}` };

const NOTEBOOK = JSON.stringify({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { name: PAYLOAD, display_name: PAYLOAD, language: PAYLOAD } },
  cells: [
    {
      cell_type: 'markdown',
      id: 'm',
      metadata: {},
      source: `# ${PAYLOAD}\n\n[entity](&#106;avascript:alert(6)) ![img](&#106;avascript:alert(7) "${PAYLOAD}") [hex](&#x6A;avascript:alert(8))`,
    },
    { cell_type: 'raw', id: 'r', metadata: {}, source: `</pre>${PAYLOAD}` },
    {
      cell_type: 'code',
      id: 'c',
      metadata: {},
      execution_count: 1,
      source: `print("${PAYLOAD}")`,
      outputs: [
        { output_type: 'stream', name: 'stdout', text: PAYLOAD },
        { output_type: 'error', ename: PAYLOAD, evalue: PAYLOAD, traceback: [PAYLOAD] },
        {
          output_type: 'display_data',
          metadata: {},
          data: { 'text/plain': PAYLOAD, 'text/markdown': `[x](&#106;avascript:alert(9)) ${PAYLOAD}` },
        },
      ],
    },
  ],
});

/** The few named references a hostile URL could use; anything else unknown counts as suspicious. */
const NAMED: Record<string, string> = {
  amp: '&',
  quot: '"',
  apos: "'",
  lt: '<',
  gt: '>',
  colon: ':',
  tab: '\t',
  newline: '\n',
  nbsp: '\u00a0',
};

function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);?/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return String.fromCodePoint(code);
    }
    const named = NAMED[ref.toLowerCase()];
    if (named === undefined) throw new Error(`unexpected character reference ${whole}`);
    return named;
  });
}

const TAG = /<([a-zA-Z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** No event handler, no script URL, no script but our JSON block and module files. */
function expectInert(html: string, where: string): void {
  for (const [, tag = '', attributes = ''] of html.matchAll(TAG)) {
    const attrs = new Map<string, string>();
    for (const [, name = '', dq, sq, bare] of attributes.matchAll(ATTRIBUTE)) {
      attrs.set(name.toLowerCase(), decodeAttribute(dq ?? sq ?? bare ?? ''));
    }
    for (const [name, value] of attrs) {
      expect(name.startsWith('on'), `${where}: <${tag} ${name}=…>`).toBe(false);
      if (['href', 'src', 'action', 'formaction', 'xlink:href'].includes(name)) {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers drop these inside URLs
        const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value.replace(/[\u0000-\u0020]/g, ''))?.[1]?.toLowerCase();
        const allowed =
          scheme === undefined ||
          ['http', 'https', 'mailto'].includes(scheme) ||
          value === 'data:,' ||
          /^data:image\/(png|jpeg|gif|svg\+xml);base64,/i.test(value);
        expect(allowed, `${where}: <${tag} ${name}="${value}">`).toBe(true);
      }
    }
    if (tag.toLowerCase() === 'script') {
      const ours = attrs.get('type') === 'application/json' || /^\/(nb\/)?static\//.test(attrs.get('src') ?? '');
      expect(ours, `${where}: <script${attributes}>`).toBe(true);
    }
    expect(
      ['svg', 'i'].includes(tag.toLowerCase()) && attributes.includes('alert'),
      `${where}: <${tag}${attributes}>`,
    ).toBe(false);
  }
}

/** The page's JSON data block: no `<`, `>`, `&` or line separators inside, and it reads back intact. */
function configBlock(html: string): Record<string, unknown> {
  const block = /<script type="application\/json" id="nbserve-config">([\s\S]*?)<\/script>/.exec(html)?.[1];
  expect(block).toBeDefined();
  expect(block).not.toMatch(/[<>&\u2028\u2029]/);
  return JSON.parse(block as string) as Record<string, unknown>;
}

describe('every server-rendered page escapes what it shows', () => {
  let f: TestApp;
  const get = async (url: string, headers: Record<string, string> = AUTH) => {
    const res = await f.app.request(`http://localhost${url}`, { headers });
    return { res, html: await res.text() };
  };

  beforeAll(async () => {
    f = await createTestApp();
    const root = path.join(f.dir, 'root');
    await fs.writeFile(path.join(root, TEXT_NAME), 'text');
    await fs.writeFile(path.join(root, NB_NAME), NOTEBOOK);
    // Exports keep a notebook's own HTML (inert under their sandbox CSP): this one has none, so
    // anything active in its export came from its name.
    await fs.writeFile(path.join(root, SCRIPT_NAME), JSON.stringify({ ...JSON.parse(NOTEBOOK), cells: [] }));
    await fs.mkdir(path.join(root, DIR_NAME));
  });

  afterAll(async () => {
    await f?.close();
  });

  it.each([
    ['edit', TEXT_NAME],
    ['edit', NB_NAME],
    ['notebooks', NB_NAME],
    ['notebooks', SCRIPT_NAME],
    ['tree', DIR_NAME],
  ])('/%s/%s: title escaped, path intact in the JSON block', async (page, name) => {
    const { res, html } = await get(`/${page}/${encodeURIComponent(name)}`);
    expect(res.status).toBe(200);
    expectInert(html, `/${page}`);
    expect(html).toContain(`<title>${escapeHtml(name)}`);
    expect(configBlock(html).path).toBe(name);
  });

  it('/print and the legacy /<id>/print: names, cells, outputs and markdown links', async () => {
    const { res, html } = await get(`/print/${encodeURIComponent(NB_NAME)}`);
    expect(res.status).toBe(200);
    expectInert(html, '/print');
    expect(html).not.toContain(PAYLOAD);
    // Character references in a link are decoded before the scheme check, as the browser would.
    expect(html).toContain('<a href="#">entity</a>');
    expect(html).toContain('<a href="#">hex</a>');
    const list = (await (await f.app.request('http://localhost/notebooks', { headers: AUTH })).json()) as Array<{
      notebook_id: string;
      name: string;
    }>;
    const id = list.find((entry) => `${entry.name}.ipynb` === NB_NAME || entry.name === NB_NAME)?.notebook_id;
    expect(id).toBeDefined();
    const legacy = await get(`/${id}/print`);
    expect(legacy.res.status).toBe(200);
    expectInert(legacy.html, '/<id>/print');
    expect(legacy.html).not.toContain(PAYLOAD);
  });

  it('/nbconvert/html (stored and posted) and its download: the name in the title', async () => {
    for (const query of ['', '?download=true']) {
      const { res, html } = await get(`/nbconvert/html/${encodeURIComponent(SCRIPT_NAME)}${query}`);
      expect(res.status).toBe(200);
      expectInert(html, `/nbconvert/html${query}`);
      expect(html).toContain(`<title>${escapeHtml(SCRIPT_NAME.replace(/\.ipynb$/, ''))}</title>`);
    }
    const posted = await f.app.request('http://localhost/nbconvert/html', {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ name: NB_NAME, content: { ...JSON.parse(NOTEBOOK), cells: [] } }),
    });
    expect(posted.status).toBe(200);
    expectInert(await posted.text(), 'POST /nbconvert/html');
  });

  it('the login page reflects next= only escaped, before and after a failed attempt', async () => {
    const next = `/tree?x=${PAYLOAD}`;
    const first = await get(`/login?next=${encodeURIComponent(next)}`, {});
    expect(first.res.status).toBe(200);
    expectInert(first.html, '/login');
    expect(first.html).not.toContain(PAYLOAD);
    const xsrf = /name="_xsrf" value="([^"]+)"/.exec(first.html)?.[1] ?? '';
    const failed = await f.app.request(`http://localhost/login?next=${encodeURIComponent(next)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `_xsrf=${xsrf}` },
      body: new URLSearchParams({ password: PAYLOAD, _xsrf: xsrf }).toString(),
    });
    expect(failed.status).toBe(200);
    const html = await failed.text();
    expectInert(html, 'POST /login');
    expect(html).toContain('Invalid credentials');
    expect(html).not.toContain(PAYLOAD);
  });

  it('logout, the 404 pages, the output frame and rstservice', async () => {
    const pages = [
      await get('/logout'),
      await get(`/no/such/${encodeURIComponent(PAYLOAD)}`),
      await get('/00000000-0000-4000-8000-000000000000/print'),
      await get('/output-frame'),
      await get(`/rstservice/render?text=${encodeURIComponent(`${PAYLOAD}\n${'='.repeat(30)}\n\n${PAYLOAD}`)}`),
    ];
    for (const { res, html } of pages) {
      expect(res.headers.get('content-type')).toContain('text/html');
      expectInert(html, res.url || 'page');
      expect(html).not.toContain(PAYLOAD);
    }
  });

  it('one escaper: & < > " \' in text and attributes; JSON for <script> blocks', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
    expect(escapeHtml('plain text')).toBe('plain text');
    const json = jsonForScript({ s: '</script><!--&\u2028\u2029' });
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual({ s: '</script><!--&\u2028\u2029' });
  });
});
