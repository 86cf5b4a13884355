import { describe, expect, it } from 'vitest';
import { EXPORT_MARKDOWN } from '../src/export/html-exporter.js';
import { isSafeUrl } from '../src/html/safe-url.js';
import { renderMarkdown } from '../src/render/markdown-html.js';
import { safeLinkUrl } from '../src/rst/safe-url.js';

const markdownToHtml = (source: string) => renderMarkdown(source, EXPORT_MARKDOWN);

const SAFE = [
  'https://jupyter.org',
  'HTTP://a',
  'mailto:a@b',
  'ftp://x',
  '#top',
  '/files/a',
  './a',
  '../a',
  'a/b:c',
  'a.html?x=1:2',
  ' ',
  '',
];
const UNSAFE = [
  'javascript:alert(1)',
  ' JavaScript:x',
  'java\tscript:x',
  'java\u0000script:x',
  'vbscript:x',
  'data:text/html,x',
  'data:image/png;base64,AA',
  'file:///etc/passwd',
  'foo:bar',
];

describe('the one URL rule (isSafeUrl)', () => {
  it('passes web, mail and FTP addresses, fragments and relative URLs, and nothing with another scheme', () => {
    for (const url of SAFE) expect(isSafeUrl(url), url).toBe(true);
    for (const url of UNSAFE) expect(isSafeUrl(url), url).toBe(false);
  });

  it('is the rule of the export and of reST', () => {
    for (const url of UNSAFE) {
      expect(safeLinkUrl(url), url).toBeUndefined();
      // (markdown's link syntax takes no spaces or control characters)
      if (!url.includes('\u0000') && !/\s/.test(url)) expect(markdownToHtml(`[x](${url})`)).not.toContain('<a ');
    }
    for (const url of ['https://jupyter.org', 'a/b:c', '#top']) {
      expect(safeLinkUrl(url)).toBe(url);
      expect(markdownToHtml(`[x](${url})`)).toContain(`<a href="${url}">`);
    }
  });
});
