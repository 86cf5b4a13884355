import type { Language } from './engine/messages.js';

export const IMPLEMENTATION = 'nbserve-kernel-js';
export const IMPLEMENTATION_VERSION = '0.1.0';

/** The `kernel_info_reply` content for one language of the built-in kernel. */
export function kernelInfo(language: Language): Record<string, unknown> {
  const node = process.versions.node;
  const typescript = language === 'typescript';
  return {
    status: 'ok',
    protocol_version: '5.3',
    implementation: IMPLEMENTATION,
    implementation_version: IMPLEMENTATION_VERSION,
    language_info: typescript
      ? {
          name: 'typescript',
          version: node,
          mimetype: 'text/typescript',
          file_extension: '.ts',
          pygments_lexer: 'typescript',
          codemirror_mode: { name: 'javascript', typescript: true },
          nbconvert_exporter: 'script',
        }
      : {
          name: 'javascript',
          version: node,
          mimetype: 'text/javascript',
          file_extension: '.js',
          pygments_lexer: 'javascript',
          codemirror_mode: 'javascript',
          nbconvert_exporter: 'script',
        },
    banner: `nbserve ${typescript ? 'TypeScript' : 'JavaScript'} kernel ${IMPLEMENTATION_VERSION} on Node.js ${node}\nHelpers: display(value), display.html/markdown/svg/png/jpeg/json/latex(...), await input(prompt)`,
    help_links: [
      { text: 'Node.js documentation', url: 'https://nodejs.org/docs/latest-v20.x/api/' },
      { text: 'MDN JavaScript reference', url: 'https://developer.mozilla.org/docs/Web/JavaScript/Reference' },
    ],
  };
}
