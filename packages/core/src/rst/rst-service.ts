import { badRequest, tooLarge } from '../errors.js';
import { escapeHtml } from '../html/escape.js';
import { neutralizeHtml } from '../render/neutralize.js';
import { renderRstBuiltin } from './builtin-renderer.js';
import { type DocutilsOptions, DocutilsRenderer } from './docutils-renderer.js';
import { sanitizeUrlAttributes } from './safe-url.js';

export interface RstServiceOptions {
  /** Use docutils when it is installed (default); `false` forces the built-in renderer. */
  docutils?: DocutilsOptions | false;
  /** Largest accepted source in bytes (UTF-8); default 1 MiB. */
  maxBytes?: number;
}

export interface RenderedRst {
  /** A complete HTML document. */
  html: string;
  renderer: 'docutils' | 'builtin';
}

/**
 * reStructuredText to a standalone HTML document (`/rstservice/render`). docutils when it is
 * there, else the built-in subset renderer; either way the HTML is sanitized before it leaves.
 */
export class RstService {
  private readonly docutils: DocutilsRenderer | undefined;
  /** Largest accepted source in bytes. */
  readonly maxBytes: number;
  private docutilsAvailable: Promise<boolean> | undefined;

  constructor(options: RstServiceOptions = {}) {
    this.docutils = options.docutils === false ? undefined : new DocutilsRenderer(options.docutils);
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
  }

  private hasDocutils(docutils: DocutilsRenderer): Promise<boolean> {
    this.docutilsAvailable ??= docutils.available();
    return this.docutilsAvailable;
  }

  async render(source: string): Promise<RenderedRst> {
    if (Buffer.byteLength(source, 'utf8') > this.maxBytes) {
      throw tooLarge(`reST source is larger than ${this.maxBytes} bytes`);
    }
    // NUL cannot be reST and upsets docutils.
    if (source.includes('\u0000')) throw badRequest('Invalid RST', 'bad rst');
    if (this.docutils && (await this.hasDocutils(this.docutils))) {
      const parts = await this.docutils.render(source);
      return { html: document(parts.title, parts.body, parts.style), renderer: 'docutils' };
    }
    const parts = renderRstBuiltin(source);
    return { html: document(parts.title, parts.body, ''), renderer: 'builtin' };
  }
}

function document(title: string, body: string, style: string): string {
  const safeBody = sanitizeUrlAttributes(neutralizeHtml(body));
  // docutils' own stylesheet is CSS text; a closing tag inside it is the only way out.
  const safeStyle = style.replace(/<\/(?!style>)/gi, '<\\/');
  return `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
${safeStyle}
</head>
<body>
${safeBody}
</body>
</html>
`;
}
