import { describe, expect, it } from 'vitest';
import { isNbserveError, RstService, renderRstBuiltin, sanitizeUrlAttributes } from '../src/index.js';

const HOSTILE = `Title & more
============

Hello *world*, **bold**, \`\`code\`\`, \`bad <javascript:alert(1)>\`_ and \`good <https://example.org/a?b=1&c=2>\`_.

.. raw:: html

   <script>alert('raw')</script>

.. include:: /etc/passwd

.. image:: javascript:alert(2)

<script>alert(3)</script>
`;

const COMMON = `Guide
=====

Intro paragraph with a link_ and https://example.com/x.

.. _link: https://example.net/

Section
-------

- one
- two *em*

  nested paragraph

#. first
#. second

Example::

    x = 1 < 2

.. code-block:: python
   :linenos:

   print("hi")

=====  =====
Name   Value
=====  =====
a      1
b      2
=====  =====

    quoted text
`;

describe('RstService with docutils (python3-docutils is installed here)', () => {
  const service = new RstService();

  it('renders a full document with docutils', async () => {
    const { html, renderer } = await service.render(COMMON);
    expect(renderer).toBe('docutils');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<title>Guide</title>');
    expect(html).toMatch(/<h1 class="title">Guide<\/h1>/);
    expect(html).toContain('<a class="reference external" href="https://example.net/">link</a>');
    expect(html).toContain('x = 1 &lt; 2');
    expect(html).toMatch(/<table/);
    expect(html).toContain('<style');
  });

  it('disables raw and include, defuses javascript: links, escapes text', async () => {
    const { html } = await service.render(HOSTILE);
    expect(html).toContain('<title>Title &amp; more</title>');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('root:');
    expect(html).toContain('href="https://example.org/a?b=1&amp;c=2"');
    expect(html).toContain('&lt;script&gt;alert(3)&lt;/script&gt;');
  });

  it('refuses oversized sources before running anything', async () => {
    const small = new RstService({ maxBytes: 100 });
    const error = await small.render('x'.repeat(101)).catch((e: unknown) => e);
    expect(isNbserveError(error) && error.kind).toBe('too-large');
  });
});

describe('built-in reST renderer', () => {
  it('renders the common subset', () => {
    const { title, body } = renderRstBuiltin(COMMON);
    expect(title).toBe('Guide');
    expect(body).toContain('<h1 id="guide">Guide</h1>');
    expect(body).toContain('<h2 id="section">Section</h2>');
    expect(body).toContain('<a class="reference external" href="https://example.net/">link</a>');
    expect(body).toContain('<a class="reference external" href="https://example.com/x">https://example.com/x</a>');
    expect(body).toContain('<li>one</li>');
    expect(body).toContain('two <em>em</em>');
    expect(body).toContain('<p>nested paragraph</p>');
    expect(body).toMatch(/<ol>\n<li>first<\/li>\n<li>second<\/li>\n<\/ol>/);
    expect(body).toContain('<p>Example:</p>\n<pre class="literal-block">x = 1 &lt; 2</pre>');
    expect(body).toContain('<pre class="code python"><code>print(&quot;hi&quot;)</code></pre>');
    expect(body).toContain('<thead><tr><th>Name</th><th>Value</th></tr></thead>');
    expect(body).toContain('<tr><td>b</td><td>2</td></tr>');
    expect(body).toContain('<blockquote><p>quoted text</p></blockquote>');
  });

  it('escapes everything and drops raw/include directives', async () => {
    const service = new RstService({ docutils: false });
    const { html, renderer } = await service.render(HOSTILE);
    expect(renderer).toBe('builtin');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('&lt;script&gt;alert(3)&lt;/script&gt;');
  });

  it('a missing docutils falls back to the built-in renderer', async () => {
    const service = new RstService({ docutils: { python: '/nonexistent/python3' } });
    expect((await service.render('*x*')).renderer).toBe('builtin');
  });
});

describe('sanitizeUrlAttributes', () => {
  it('defuses unsafe URLs however they are encoded', () => {
    expect(
      sanitizeUrlAttributes('<a href="java&#115;cript:x">a</a><a href=\'  javascript:x\'>b</a><img src=data:x>'),
    ).toBe('<a href="#">a</a><a href="#">b</a><img src="#">');
    expect(sanitizeUrlAttributes('<a href="https://a/?x=1&amp;y">a</a><a href="rel/path">b</a>')).toBe(
      '<a href="https://a/?x=1&amp;y">a</a><a href="rel/path">b</a>',
    );
  });
});
