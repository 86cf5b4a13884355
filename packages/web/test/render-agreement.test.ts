// needs: browser
/**
 * One table of markdown, math, URL, raw-HTML, image and ANSI cases run through the three places
 * nbserve renders a notebook: the HTML export (core), the server's print view and the notebook
 * page's renderer (bundled here with esbuild and run in headless Chromium, DOMPurify included).
 * They share one markdown renderer and one ANSI path: where a case lists consumers as `same`,
 * their HTML must be identical (each serialized by the same browser), and where they differ the
 * case says which renderer option makes them differ.
 */
import { fileURLToPath } from 'node:url';
import { ExportManager } from '@nbserve/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { renderNotebookHtml } from '../src/server/print.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

type Consumer = 'export' | 'print' | 'page';
const CONSUMERS: Consumer[] = ['export', 'print', 'page'];

interface Expectation {
  has?: string[];
  lacks?: string[];
}

interface Case {
  name: string;
  /** What is rendered: a markdown cell, a stream output, or a `text/latex` output. */
  kind: 'markdown' | 'stream' | 'latex';
  input: string;
  attachments?: Record<string, Record<string, string>>;
  all: Expectation;
  /** Where a renderer option makes a consumer differ (the option is named in the case). */
  only?: Partial<Record<Consumer, Expectation>>;
  /** Groups of consumers whose HTML is identical. */
  same: Consumer[][];
}

const CASES: Case[] = [
  {
    name: 'plain markdown (headings, emphasis, lists, a titled link, code) is the same everywhere',
    kind: 'markdown',
    input: '# Title\n\n**bold** and *em*, [site](https://jupyter.org "Jupyter")\n\n- one\n- two\n\n`$x$` and \\$5',
    all: {
      has: ['<h1>Title</h1>', '<strong>bold</strong>', '<a href="https://jupyter.org" title="Jupyter">site</a>'],
    },
    same: [['export', 'print', 'page']],
  },
  {
    name: 'math keeps every backslash (`\\,`); option math: mathml (export) or htmlAndMathml (print, page)',
    kind: 'markdown',
    input: 'A $a\\,b$ and $$\\frac{1}{2}\\,x$$ with `$c$` and a_b_c',
    all: {
      has: ['<annotation encoding="application/x-tex">a\\,b</annotation>', '\\frac{1}{2}\\,x</annotation>'],
      lacks: ['a,b', 'NBSERVEMATH'],
    },
    only: {
      export: { has: ['<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">'], lacks: ['katex-html'] },
      print: { has: ['class="katex-display"', 'class="katex-html"'] },
      page: { has: ['class="katex-display"', 'class="katex-html"'] },
    },
    same: [['print', 'page']],
  },
  {
    name: 'javascript: and other schemes, plain or as character references, never become links; option refused',
    kind: 'markdown',
    input: [
      '[a](javascript:alert(1)) [b](&#106;avascript:alert(2)) [c](&#x4A;AVASCRIPT:x) [d](JaVaScRiPt:x)',
      '[e](data:text/html,x) [f](vbscript:x) [g](java&#9;script:x) [ok](https://x.org/?a=1&amp;b=2)',
    ].join(' '),
    all: {
      has: ['<a href="https://x.org/?a=1&amp;b=2">ok</a></p>'],
      lacks: ['avascript', 'AVASCRIPT', 'data:text', 'vbscript'],
    },
    only: {
      export: { has: ['<p>a b c d e f g <a href="https://x.org'], lacks: ['href="#"'] },
      print: { has: ['<p><a href="#">a</a> <a href="#">b</a> <a href="#">c</a> <a href="#">d</a> <a href="#">e</a>'] },
      page: { has: ['<a href="#">f</a> <a href="#">g</a> <a href="https://x.org'] },
    },
    same: [['print', 'page']],
  },
  {
    name: 'raw HTML: option rawHtml neutralize (export), escape (print), sanitize (page)',
    kind: 'markdown',
    input:
      'Some <b>bold</b> <script>alert(1)</script> <iframe src="https://evil"></iframe> <img src=x onerror=alert(1)>',
    all: { lacks: ['<script', '<iframe'] },
    only: {
      export: { has: ['<b>bold</b>', '&lt;script&gt;alert(1)&lt;/script&gt;', '&lt;iframe'] },
      print: {
        has: ['&lt;b&gt;bold&lt;/b&gt;', '&lt;script&gt;', '&lt;img src=x onerror=alert(1)&gt;'],
        lacks: ['<b>'],
      },
      page: { has: ['<b>bold</b>', '<img src="x">'], lacks: ['onerror', 'alert(1)'] },
    },
    same: [],
  },
  {
    name: 'attachment images become data URIs everywhere; a missing one is refused (option refused)',
    kind: 'markdown',
    input: '![dot](attachment:dot.png) and ![gone](attachment:missing.png)',
    attachments: { 'dot.png': { 'image/png': PNG } },
    all: { has: [`<img src="data:image/png;base64,${PNG}" alt="dot">`], lacks: ['attachment:'] },
    only: {
      export: { has: ['and gone</p>'] },
      print: { has: ['and <img src="#" alt="gone"></p>'] },
      page: { has: ['and <img src="#" alt="gone"></p>'] },
    },
    same: [['print', 'page']],
  },
  {
    name: 'remote images: option images embedded (export: alt text) or linked (print, page)',
    kind: 'markdown',
    input: [
      '![remote](https://example.org/r.png)',
      `![inline](data:image/png;base64,${PNG})`,
      '![svg](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=) ![js](javascript:x) ![enc](&#106;avascript:x)',
    ].join(' '),
    all: {
      has: [`<img src="data:image/png;base64,${PNG}" alt="inline">`],
      lacks: ['image/svg+xml', 'javascript', 'avascript'],
    },
    only: {
      export: { has: ['<p>remote <img', '> svg js enc</p>'], lacks: ['example.org', 'src="#"'] },
      print: { has: ['<img src="https://example.org/r.png" alt="remote">', '<img src="#" alt="enc">'] },
      page: { has: ['<img src="https://example.org/r.png" alt="remote">', '<img src="#" alt="svg">'] },
    },
    same: [['print', 'page']],
  },
  {
    name: 'ANSI colours and bold, a \\r progress bar; option classes (print, page) or inline styles (export)',
    kind: 'stream',
    input: '\u001b[31mred\u001b[0m \u001b[1mbold\u001b[0m \u001b[38;5;196mX\u001b[0m <x>\nload 10%\rload 100%\n',
    all: {
      has: ['load 100%', '&lt;x&gt;', '<span style="color:rgb(255,0,0)">X</span>', 'font-weight:bold'],
      lacks: ['10%\r', 'load 10%', '\u001b', '[31m'],
    },
    only: {
      export: { has: ['<span style="color:rgb(187,0,0)">red</span>', '<span style="font-weight:bold">bold</span>'] },
      print: { has: ['<span class="ansi-red-fg">red</span>'], lacks: ['rgb(187,0,0)'] },
      page: { has: ['<span class="ansi-red-fg">red</span>'], lacks: ['rgb(187,0,0)'] },
    },
    same: [['print', 'page']],
  },
  {
    name: 'text/latex outputs: one renderer, bare environments as display math',
    kind: 'latex',
    input: '\\begin{align} a &= b\\,c \\end{align}',
    all: { has: ['b\\,c', 'display="block"'], lacks: ['katex-error'] },
    only: { export: { lacks: ['katex-html'] }, print: { has: ['class="katex-display"', 'katex-html'] } },
    same: [['print', 'page']],
  },
];

function notebookOf(c: Case): Record<string, unknown> {
  const cell =
    c.kind === 'markdown'
      ? { cell_type: 'markdown', id: 'm', metadata: {}, source: c.input, attachments: c.attachments }
      : {
          cell_type: 'code',
          id: 'c',
          metadata: {},
          execution_count: 1,
          source: 'x',
          outputs: [
            c.kind === 'stream'
              ? { output_type: 'stream', name: 'stdout', text: c.input }
              : { output_type: 'display_data', metadata: {}, data: { 'text/latex': c.input } },
          ],
        };
  if (!c.attachments) delete (cell as { attachments?: unknown }).attachments;
  return { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [cell] };
}

const SELECTORS: Record<Exclude<Consumer, 'page'>, Record<Case['kind'], string>> = {
  export: { markdown: '.cell.markdown .body', stream: 'pre.stream', latex: '.latex' },
  print: { markdown: '.markdown-cell', stream: 'pre.output-stream', latex: '.output-latex' },
};

/** The page's own renderer calls, as the notebook page makes them (render-mime.ts, output-area.ts). */
const PAGE_ENTRY = `
import { appendStreamText } from './shared/stream-text.js';
import { renderLatex, renderMarkdown } from '@nbserve/core/render';
import { ansiHtml, PAGE_MARKDOWN } from './browser/notebook/render-mime.js';
window.pageRender = {
  markdown: (source, attachments) => renderMarkdown(source, attachments ? { ...PAGE_MARKDOWN, attachments } : PAGE_MARKDOWN),
  stream: (text) => ansiHtml(appendStreamText('', text).replace(/\\r$/, '')),
  latex: (source) => renderLatex(source, PAGE_MARKDOWN),
};
`;

describe('export, print view and page render through one renderer', () => {
  let browser: Browser;
  let page: Page;
  const exporter = new ExportManager({ nbconvert: false, pdf: false });

  beforeAll(async () => {
    const { build } = await import('esbuild');
    const bundle = await build({
      stdin: { contents: PAGE_ENTRY, resolveDir: fileURLToPath(new URL('../src', import.meta.url)), loader: 'ts' },
      bundle: true,
      format: 'iife',
      platform: 'browser',
      conditions: ['@nbserve/source'],
      write: false,
      logLevel: 'silent',
    });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.setContent('<!DOCTYPE html><html><body></body></html>');
    await page.addScriptTag({ content: bundle.outputFiles[0]?.text ?? '' });
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Each consumer's rendering of the case, serialized by the same browser so markup compares exactly. */
  async function renderAll(c: Case): Promise<Record<Consumer, string>> {
    const nb = notebookOf(c);
    const exported = (await exporter.export('html', nb, 'agreement')).body as string;
    const printed = renderNotebookHtml(nb);
    return await page.evaluate(
      ({ c, exported, printed, selectors }) => {
        const pick = (html: string, selector: string) => {
          const found = new DOMParser().parseFromString(html, 'text/html').querySelector(selector);
          return found ? found.innerHTML : `(nothing matches ${selector})`;
        };
        const render = (window as unknown as { pageRender: Record<string, (s: string, a?: unknown) => string> })
          .pageRender;
        const own = render[c.kind]?.(c.input, c.attachments) ?? '';
        return {
          export: pick(exported, selectors.export[c.kind]),
          print: pick(printed, selectors.print[c.kind]),
          page: pick(`<div id="page">${own}</div>`, '#page'),
        };
      },
      { c, exported, printed, selectors: SELECTORS },
    );
  }

  for (const c of CASES) {
    it(c.name, async () => {
      const html = await renderAll(c);
      for (const consumer of CONSUMERS) {
        const wanted = { has: [...(c.all.has ?? []), ...(c.only?.[consumer]?.has ?? [])] };
        const unwanted = [...(c.all.lacks ?? []), ...(c.only?.[consumer]?.lacks ?? [])];
        for (const text of wanted.has) expect(html[consumer], `${consumer} has ${text}`).toContain(text);
        for (const text of unwanted) expect(html[consumer], `${consumer} lacks ${text}`).not.toContain(text);
      }
      for (const group of c.same) {
        const [first, ...rest] = group;
        for (const other of rest) expect(html[other], `${other} = ${first}`).toBe(html[first as Consumer]);
      }
      // Consumers outside every `same` group differ: only an option listed in `only` may make them.
      for (const consumer of CONSUMERS) {
        if (!c.same.some((group) => group.includes(consumer))) expect(c.only?.[consumer]).toBeDefined();
      }
    });
  }
});
