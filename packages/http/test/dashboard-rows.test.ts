/**
 * The dashboard's HTML carries the folder's top rows (escaped, linked under the base URL, in the
 * order the page's code shows them) and its first page in the config block, which is exactly
 * what `GET /api/contents/<dir>?content=1&offset=0&limit=200` answers.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';

const EVIL = `<img src=x onerror=alert(1)>"'&.txt`;
const OLD = new Date('2020-01-15T12:00:00Z');

let plain: TestServer;
let based: TestServer;

async function fill(root: string): Promise<void> {
  const small = path.join(root, 'small');
  await fs.mkdir(path.join(small, 'z dir'), { recursive: true });
  for (const name of [EVIL, 'f10.txt', 'f2.txt', '.hidden.txt', 'data.bin'])
    await fs.writeFile(path.join(small, name), 'x');
  await fs.writeFile(path.join(small, 'n.ipynb'), '{}');
  await fs.utimes(path.join(small, 'f2.txt'), OLD, OLD);
  const big = path.join(root, 'big');
  await fs.mkdir(big);
  await Promise.all(Array.from({ length: 250 }, (_, i) => fs.writeFile(path.join(big, `g${i}.txt`), '')));
}

beforeAll(async () => {
  plain = await startServer();
  based = await startServer({ baseUrl: '/user/a%40b/' });
  await Promise.all([fill(plain.root), fill(based.root)]);
}, 60_000);

afterAll(async () => {
  await plain?.close();
  await based?.close();
});

async function page(server: TestServer, relative: string, headers: Record<string, string> = {}) {
  const res = await server.request(relative, { headers });
  expect(res.status).toBe(200);
  const html = await res.text();
  const config = JSON.parse(
    html.match(/<script type="application\/json" id="nbserve-config">(.*?)<\/script>/s)?.[1] ?? '{}',
  );
  const rows = [
    ...html.matchAll(/<div class="row" role="row" data-path="([^"]*)" data-name="([^"]*)"[^>]*>(.*?)<\/div>/g),
  ].map(([, dataPath, name, inner]) => ({
    path: dataPath,
    name,
    href: inner?.match(/<a class="entry-link" href="([^"]*)"/)?.[1],
    date: inner?.match(/<span class="col col-date" title="[^"]*">([^<]*)</)?.[1],
  }));
  return { res, html, config, rows };
}

describe('dashboard rows written by the server', () => {
  it('writes a small folder whole, in the page order (folders, notebooks, then names in numeric order)', async () => {
    const { rows, html } = await page(plain, 'tree/small', { 'Accept-Language': 'en-US,en;q=0.9' });
    expect(rows.map((r) => r.name)).toEqual([
      '..',
      'z dir',
      'n.ipynb',
      '&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;.txt',
      'data.bin',
      'f2.txt',
      'f10.txt',
    ]);
    expect(html).toContain('<div class="list-status">6 items</div>');
    expect(html).not.toContain('.hidden.txt');
    // nothing of a name gets out of its attribute or text
    expect(html).not.toMatch(/<img src=x/);
    expect(rows.map((r) => r.href)).toEqual([
      '/tree',
      '/tree/small/z%20dir',
      '/notebooks/small/n.ipynb',
      `/edit/small/${encodeURIComponent(EVIL).replace(/'/g, '&#39;')}`,
      '/files/small/data.bin',
      '/edit/small/f2.txt',
      '/edit/small/f10.txt',
    ]);
    expect(rows.find((r) => r.name === 'f2.txt')?.date).toBe('Jan 15, 2020');
    expect(rows.find((r) => r.name === 'f10.txt')?.date).toMatch(/ago$/);
  });

  it('carries the first page the API gives, which the page then shows without asking again', async () => {
    const { config } = await page(plain, 'tree/big');
    const api = await plain.request('api/contents/big?content=1&offset=0&limit=200');
    const first = (await api.json()) as { content: unknown[]; total: number };
    expect(first.content).toHaveLength(200);
    expect(first.total).toBe(250);
    expect(config.firstPage).toEqual(first);
  });

  it('writes the top 40 rows of a bigger folder in the server order, counting them all', async () => {
    const { rows, html, config } = await page(plain, 'tree/big');
    expect(rows).toHaveLength(40);
    const names = (config.firstPage.content as { name: string }[]).map((e) => e.name);
    expect(rows.map((r) => r.name)).toEqual(['..', ...names.slice(0, 39)]);
    expect(html).toContain('<div class="list-status">250 items</div>');
    expect(html).toContain('style="height: 7236px"'); // the first page and `..`, 36 px each
  });

  it('links everything under the base URL', async () => {
    const { rows, html } = await page(based, 'tree/small');
    expect(rows.map((r) => r.href).slice(0, 3)).toEqual([
      '/user/a%40b/tree',
      '/user/a%40b/tree/small/z%20dir',
      '/user/a%40b/notebooks/small/n.ipynb',
    ]);
    expect(html).toContain('<a class="brand" href="/user/a%40b/tree">');
    expect(html).toContain('<a href="/user/a%40b/tree/small" class="crumb">small</a>');
    expect(html).toContain('href="/user/a%40b/logout"');
  });

  it('writes the root with no `..` row, and takes any Accept-Language without failing', async () => {
    for (const language of ['de-DE', '*', 'x'.repeat(300), 'en-US;q=abc', '12345', '']) {
      const { rows } = await page(plain, 'tree', { 'Accept-Language': language });
      expect(rows.map((r) => r.name)).toEqual(['big', 'small']);
    }
    const { rows } = await page(plain, 'tree/small', { 'Accept-Language': 'de-DE' });
    expect(rows.find((r) => r.name === 'f2.txt')?.date).toBe('15. Jan. 2020');
  });

  it('keeps the page free of inline script: its stylesheet is inline, its code an external module', async () => {
    const { res, html } = await page(plain, 'tree/small');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(html).toMatch(/<style>[^<]*\.vlist/);
    expect(html).not.toMatch(/<link rel="stylesheet"/);
    expect(html).not.toMatch(/<link rel="preload"/);
    for (const [, attrs, body] of html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      if (attrs?.includes('application/json')) continue;
      expect(attrs).toMatch(/type="module" src="\/static\/dashboard-\w+\.js"/);
      expect(body).toBe('');
    }
    // no event handler attribute on any element (attribute values, where names are, left out)
    const body = html.slice(html.indexOf('<body'));
    expect(body.replace(/"[^"]*"/g, '""')).not.toMatch(/<[a-zA-Z][^>]*\son\w+=/);
  });
});
