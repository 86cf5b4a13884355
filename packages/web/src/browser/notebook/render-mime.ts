import { type Attachments, ansiToHtml, type MarkdownOptions, renderLatex, renderMarkdown } from '@nbserve/core/render';
import DOMPurify from 'dompurify';
import { cleanBase64, joinText, type MimeBundle, pickMime } from '../../shared/mime.js';
import { pageConfig } from '../lib/config.js';
import { h } from '../lib/dom.js';

/** ANSI-coloured text to escaped HTML, with the `ansi-*` classes the page's stylesheet defines. */
export function ansiHtml(text: string): string {
  return ansiToHtml(text, { classes: true });
}

/** Untrusted HTML: no scripts, no event handlers, no forms posting to our origin. */
export function sanitize(html: string): string {
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: [
      'style',
      'form',
      'input',
      'button',
      'textarea',
      'select',
      'iframe',
      'object',
      'embed',
      'base',
      'meta',
      'link',
    ],
    ADD_ATTR: ['target'],
  });
}

/** The page's options of the shared markdown renderer: raw HTML kept for DOMPurify, KaTeX with its CSS. */
export const PAGE_MARKDOWN: MarkdownOptions = {
  rawHtml: { sanitize },
  images: 'linked',
  math: 'htmlAndMathml',
  refused: 'hash',
};

export function markdownElement(source: string, attachments?: Attachments): HTMLElement {
  const div = h('div', { className: 'rendered-markdown' });
  div.innerHTML = renderMarkdown(source, attachments ? { ...PAGE_MARKDOWN, attachments } : PAGE_MARKDOWN);
  for (const a of div.querySelectorAll('a[href^="http"]')) {
    a.setAttribute('target', '_blank');
    a.setAttribute('rel', 'noopener noreferrer');
  }
  return div;
}

function imageElement(mime: string, data: unknown, metadata: Record<string, unknown>): HTMLElement | undefined {
  const b64 = cleanBase64(data);
  if (b64 === undefined) return undefined;
  const img = h('img', { src: `data:${mime};base64,${b64}`, alt: '', className: 'output-image' });
  const meta = (metadata[mime] ?? {}) as { width?: unknown; height?: unknown };
  if (typeof meta.width === 'number') img.width = meta.width;
  if (typeof meta.height === 'number') img.height = meta.height;
  return img;
}

/**
 * A trusted output with scripts runs inside a sandboxed iframe (opaque origin, its own CSP),
 * so even trusted JavaScript cannot read the user's cookies or call the API as them.
 */
function sandboxFrame(mime: string, content: string): HTMLElement {
  const { baseUrl, outputFrameUrl } = pageConfig();
  const frame = h('iframe', {
    className: 'output-frame',
    sandbox: 'allow-scripts allow-popups',
    src: typeof outputFrameUrl === 'string' ? outputFrameUrl : `${baseUrl}output-frame`,
    title: 'Trusted output',
  });
  const onMessage = (event: MessageEvent) => {
    if (frame.dataset.shown === 'true' && !frame.isConnected) {
      window.removeEventListener('message', onMessage); // the output was cleared or replaced
      return;
    }
    if (event.source !== frame.contentWindow) return;
    frame.dataset.shown = 'true';
    const data = event.data as { type?: string; height?: number };
    if (data.type === 'ready') frame.contentWindow?.postMessage({ type: 'render', mime, content }, '*');
    if (data.type === 'height' && typeof data.height === 'number')
      frame.style.height = `${Math.min(data.height + 4, 5000)}px`;
  };
  window.addEventListener('message', onMessage);
  return frame;
}

export const WIDGET_VIEW_MIME = 'application/vnd.jupyter.widget-view+json';

/** Draws widget views (widgets/host.ts, one per page, passed in by the notebook). */
export interface WidgetViews {
  /** A view of the widget `data` names, drawn over `fallback` (its text form) once there. */
  render(data: unknown, fallback: HTMLElement, trusted: boolean): HTMLElement;
}

/** Renders one mime bundle; `trusted` decides whether HTML may keep scripts (in a sandbox). */
export function renderBundle(
  bundle: MimeBundle,
  metadata: Record<string, unknown>,
  trusted: boolean,
  widgets: WidgetViews,
): HTMLElement {
  // A widget view renders over its text/plain form (untrusted: a live kernel model only, host.ts).
  if (bundle[WIDGET_VIEW_MIME] !== undefined) {
    const { [WIDGET_VIEW_MIME]: view, ...rest } = bundle;
    const wrap = h('div', { className: 'output-rendered', 'data-mime-type': WIDGET_VIEW_MIME });
    wrap.append(widgets.render(view, renderBundle(rest, metadata, trusted, widgets), trusted));
    return wrap;
  }
  const mime = pickMime(bundle, trusted);
  const wrap = h('div', { className: 'output-rendered', 'data-mime-type': mime ?? '' });
  if (mime === undefined) return wrap;
  const data = bundle[mime];
  switch (mime) {
    case 'application/javascript':
      wrap.append(sandboxFrame(mime, joinText(data)));
      break;
    case 'text/html': {
      const html = joinText(data);
      if (trusted && /<script|\son\w+\s*=|javascript:/i.test(html)) {
        wrap.append(sandboxFrame(mime, html));
      } else {
        wrap.classList.add('output-html');
        wrap.innerHTML = sanitize(html);
      }
      break;
    }
    case 'text/markdown':
      wrap.append(markdownElement(joinText(data)));
      break;
    case 'text/latex':
      wrap.classList.add('output-latex');
      wrap.innerHTML = renderLatex(joinText(data), PAGE_MARKDOWN);
      break;
    case 'image/svg+xml': {
      // As an <img>, an SVG cannot run script; inline only when trusted.
      const svg = joinText(data);
      if (trusted) {
        wrap.innerHTML = DOMPurify.sanitize(svg, { USE_PROFILES: { svg: true, svgFilters: true } });
      } else {
        const b64 = btoa(unescape(encodeURIComponent(svg)));
        wrap.append(h('img', { src: `data:image/svg+xml;base64,${b64}`, alt: '', className: 'output-image' }));
      }
      break;
    }
    case 'image/png':
    case 'image/jpeg':
    case 'image/gif': {
      const img = imageElement(mime, data, metadata);
      if (img) wrap.append(img);
      break;
    }
    case 'application/json':
      wrap.append(h('pre', { className: 'output-json' }, JSON.stringify(data, null, 2)));
      break;
    default: {
      const pre = h('pre', { className: 'output-text' });
      pre.innerHTML = ansiHtml(joinText(data));
      wrap.append(pre);
    }
  }
  return wrap;
}
