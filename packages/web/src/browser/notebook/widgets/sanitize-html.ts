import { sanitize } from '../render-mime.js';

/**
 * Stands in for the `sanitize-html` package, which `@jupyter-widgets/base-manager` uses for
 * descriptions with `description_allow_html` (and which would bring postcss and an HTML parser,
 * about 150 KB, into the page): the page's own DOMPurify-based sanitizer does the same job.
 * The bundler maps `sanitize-html` here (src/bundle/build.ts).
 */
export default function sanitizeHtml(html: string): string {
  return sanitize(html);
}
