// needs: kernel
import { execFileSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import { ansiToHtml, ExportManager, isNbserveError, neutralizeHtml } from '../src/index.js';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function sampleNotebook(language = 'python') {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language },
      language_info: { name: language },
    },
    cells: [
      {
        cell_type: 'markdown',
        id: 'm1',
        metadata: {},
        source: [
          '# Title <script>alert(1)</script>\n',
          '\n',
          '[bad](javascript:alert(2)) and [good](https://example.org)\n',
          '![att](attachment:dot.png)',
        ],
        attachments: { 'dot.png': { 'image/png': PNG_1PX } },
      },
      {
        cell_type: 'code',
        id: 'c1',
        metadata: {},
        execution_count: 3,
        source: 'print("<b>hi</b>")\n1 + 1',
        outputs: [
          { output_type: 'stream', name: 'stdout', text: ['<b>hi</b>\n', 'progress 10%\rprogress 100%\n'] },
          { output_type: 'execute_result', execution_count: 3, metadata: {}, data: { 'text/plain': '2' } },
          { output_type: 'display_data', metadata: {}, data: { 'image/png': PNG_1PX, 'text/plain': '<Figure>' } },
          {
            output_type: 'display_data',
            metadata: {},
            data: {
              'text/html':
                '<table><tr><td>cell</td></tr></table><meta http-equiv="refresh" content="0;url=https://evil"><script>steal()</script>',
            },
          },
          {
            output_type: 'display_data',
            metadata: {},
            data: { 'image/svg+xml': '<svg xmlns="http://www.w3.org/2000/svg"><script>x()</script></svg>' },
          },
          {
            output_type: 'error',
            ename: 'ValueError',
            evalue: 'bad',
            traceback: ['\u001b[0;31mValueError\u001b[0m: bad <x>'],
          },
        ],
      },
      { cell_type: 'raw', id: 'r1', metadata: {}, source: 'raw <i>text</i>' },
    ],
  };
}

const text = (body: string | Uint8Array) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));

describe('built-in exporters', () => {
  const manager = new ExportManager({ nbconvert: false, pdf: false });

  it('lists the built-in formats with their mimetypes', async () => {
    expect(await manager.list()).toEqual({
      html: { output_mimetype: 'text/html' },
      markdown: { output_mimetype: 'text/markdown' },
      notebook: { output_mimetype: 'application/json' },
      script: { output_mimetype: '' },
    });
  });

  it('script: python with In[] markers and markdown as comments', async () => {
    const result = await manager.export('script', sampleNotebook(), 'Analysis');
    expect(result.mimetype).toBe('text/x-python');
    expect(result.extension).toBe('.py');
    const body = text(result.body);
    expect(body.startsWith('#!/usr/bin/env python\n# coding: utf-8\n')).toBe(true);
    expect(body).toContain('# In[3]:\n\n\nprint("<b>hi</b>")\n1 + 1\n');
    expect(body).toContain('# # Title <script>alert(1)</script>');
    expect(body).toContain('# raw <i>text</i>');
  });

  it('script: follows the notebook language', async () => {
    const result = await manager.export('script', sampleNotebook('javascript'), 'a');
    expect(result.extension).toBe('.js');
    expect(text(result.body)).toContain('// In[3]:');
    expect(text(result.body)).not.toContain('#!/usr/bin/env');
  });

  it('markdown: fenced code, outputs and inline images', async () => {
    const result = await manager.export('markdown', sampleNotebook(), 'a');
    const body = text(result.body);
    expect(result.mimetype).toBe('text/markdown');
    expect(body).toContain('```python\nprint("<b>hi</b>")\n1 + 1\n```');
    expect(body).toContain('```\n<b>hi</b>\nprogress 100%\n\n```');
    expect(body).toContain(`![png](data:image/png;base64,${PNG_1PX})`);
    expect(body).toContain('ValueError: bad <x>');
    expect(body).not.toContain('\u001b');
  });

  it('notebook: the notebook JSON itself', async () => {
    const nb = sampleNotebook();
    const result = await manager.export('notebook', nb, 'a');
    expect(result.extension).toBe('.ipynb');
    expect(JSON.parse(text(result.body))).toEqual(nb);
  });

  it('html: self-contained, outputs rendered, everything dangerous inert', async () => {
    const result = await manager.export('html', sampleNotebook(), 'My <Notebook>');
    const html = text(result.body);
    expect(result.mimetype).toBe('text/html');
    expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:;');
    expect(html).toContain('<title>My &lt;Notebook&gt;</title>');
    expect(html).toContain('In&nbsp;[3]:');
    expect(html).toContain('Out[3]:'.replace(' ', '&nbsp;'));
    expect(html).toContain('print(&quot;&lt;b&gt;hi&lt;/b&gt;&quot;)');
    expect(html).toContain('progress 100%');
    expect(html).not.toContain('progress 10%');
    expect(html).toContain(`<img src="data:image/png;base64,${PNG_1PX}"`);
    expect(html).toContain('<table><tr><td>cell</td></tr></table>');
    expect(html).toContain('<img src="data:image/svg+xml;base64,');
    expect(html).toContain('<span style="color:rgb(187,0,0)">ValueError</span>: bad &lt;x&gt;');
    expect(html).toContain('<h1>Title &lt;script>alert(1)&lt;/script></h1>');
    expect(html).toContain('<a href="https://example.org">good</a>');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('raw &lt;i&gt;text&lt;/i&gt;');
    // Exactly one <meta http-equiv>, ours; no live script, meta refresh or foreign tag opens.
    expect(html.match(/<meta http-equiv/gi)).toHaveLength(1);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<iframe|<object|<embed|<base|<form/i);
  });

  it('html: math rendered to MathML by KaTeX, every backslash kept, code spans and escapes left alone', async () => {
    const nb = sampleNotebook();
    nb.cells = [
      { cell_type: 'markdown', id: 'm', metadata: {}, source: 'A $a\\,b$ and $$\\frac{1}{2}\\,x$$, `$c$`, \\$5' },
      {
        cell_type: 'code',
        id: 'c',
        metadata: {},
        execution_count: 1,
        source: 'x',
        outputs: [{ output_type: 'display_data', metadata: {}, data: { 'text/latex': '$\\alpha\\,\\beta$' } }],
      },
    ] as never;
    const html = text((await manager.export('html', nb, 'math')).body);
    const tex = [...html.matchAll(/<annotation encoding="application\/x-tex">([^<]*)<\/annotation>/g)].map((m) => m[1]);
    expect(tex).toEqual(['a\\,b', '\\frac{1}{2}\\,x', '\\alpha\\,\\beta']);
    expect(html).toContain('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">');
    expect(html).toContain('<code>$c$</code>');
    expect(html).toContain(', <code>$c$</code>, $5');
    expect(html).not.toContain('a,b');
  });

  it('unknown format is not-found, a non-v4 notebook is a bad request', async () => {
    const unknown = await manager.export('docx', sampleNotebook(), 'a').catch((e: unknown) => e);
    expect(isNbserveError(unknown) && unknown.kind).toBe('not-found');
    expect(isNbserveError(unknown) && unknown.message).toBe('No exporter for format: docx');
    for (const bad of [
      null,
      {},
      { nbformat: 3, nbformat_minor: 0, metadata: {}, worksheets: [] },
      { ...sampleNotebook(), cells: 'x' },
    ]) {
      const error = await manager.export('html', bad, 'a').catch((e: unknown) => e);
      expect(isNbserveError(error) && error.kind).toBe('bad-request');
    }
  });
});

describe('escaping helpers', () => {
  it('neutralizeHtml escapes only dangerous tag openings', () => {
    expect(neutralizeHtml('<b>x</b><SCRIPT>a</script><meta http-equiv=refresh><div>')).toBe(
      '<b>x</b>&lt;SCRIPT>a&lt;/script>&lt;meta http-equiv=refresh><div>',
    );
  });
  it('ansiToHtml handles 256 and truecolor and drops cursor codes', () => {
    expect(ansiToHtml('\u001b[38;5;196mX\u001b[0m\u001b[2K\u001b[48;2;1;2;3mY')).toBe(
      '<span style="color:rgb(255,0,0)">X</span><span style="background-color:rgb(1,2,3)">Y</span>',
    );
  });
});

describe('nbconvert delegation (python3-nbconvert is installed here)', () => {
  const manager = new ExportManager();

  it('lists nbconvert formats next to the built-ins, built-ins winning', async () => {
    const list = await manager.list();
    expect(list.html).toEqual({ output_mimetype: 'text/html' });
    expect(list.rst).toEqual({ output_mimetype: 'text/restructuredtext' });
    expect(list.latex).toEqual({ output_mimetype: 'text/latex' });
  });

  it('converts to rst through nbconvert; side files make it a zip', async () => {
    const plain = sampleNotebook();
    plain.cells = plain.cells.slice(1, 2);
    const code = plain.cells[0] as { outputs: unknown[] };
    code.outputs = code.outputs.slice(0, 2);
    const result = await manager.export('rst', plain, 'Analysis');
    expect(result.mimetype).toBe('text/restructuredtext');
    expect(result.extension).toBe('.rst');
    expect(text(result.body)).toContain('.. code:: python\n\n    print("<b>hi</b>")');

    const zipped = await manager.export('rst', sampleNotebook(), 'Analysis');
    expect(zipped.mimetype).toBe('application/zip');
    const dir = await makeTempDir('nbserve-zip-');
    try {
      await writeFile(join(dir, 'a.zip'), zipped.body);
      const listing = execFileSync('/usr/bin/python3', [
        '-c',
        'import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print(z.testzip()); print(sorted(z.namelist()))',
        join(dir, 'a.zip'),
      ]).toString();
      expect(listing).toContain('None');
      expect(listing).toContain("'Analysis.rst'");
      expect(listing).toContain("'Analysis_files/Analysis_1_2.png'");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a missing nbconvert leaves only the built-ins', async () => {
    const without = new ExportManager({
      nbconvert: { command: ['/nonexistent/python3', '-m', 'nbconvert'] },
      pdf: false,
    });
    expect(Object.keys(await without.list())).toEqual(['html', 'markdown', 'notebook', 'script']);
  });

  it('pdf without LaTeX is the HTML export printed by Chromium (Debian chromium is installed here)', async () => {
    const list = await new ExportManager({ nbconvert: false }).list();
    expect(Object.keys(list)).toEqual(['html', 'markdown', 'notebook', 'pdf', 'script']);
    const result = await new ExportManager({ nbconvert: false }).export('pdf', sampleNotebook(), 'a');
    expect(result.extension).toBe('.pdf');
    expect(Buffer.from(result.body).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 120_000);
});
