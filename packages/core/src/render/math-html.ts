import katex from 'katex';
import { escapeHtml } from '../html/escape.js';
import { extractMath, type MathSpan, restoreMath } from './math.js';

/**
 * What KaTeX writes: `mathml` alone for a page that loads no fonts or stylesheets (an export:
 * browsers render MathML themselves), `htmlAndMathml` where KaTeX's CSS and fonts are loaded
 * (the notebook page and the print view), which looks the same in every browser.
 */
export type MathOutput = 'mathml' | 'htmlAndMathml';

/**
 * TeX with KaTeX. KaTeX keeps the TeX, every backslash of it, in the MathML's
 * `<annotation encoding="application/x-tex">`; without `trust` it renders no links or raw HTML,
 * and a TeX error becomes the escaped source in a `katex-error` span.
 */
export function renderMath(span: MathSpan, output: MathOutput): string {
  return katex.renderToString(span.tex, { displayMode: span.display, throwOnError: false, output });
}

/** A `text/latex` output: usually `$…$` or `$$…$$`, sometimes a bare environment (display math). */
export function renderLatex(source: string, options: { math: MathOutput }): string {
  const trimmed = source.trim();
  const { text, math } = extractMath(trimmed);
  if (math.length === 0) return renderMath({ tex: trimmed, display: true }, options.math);
  return restoreMath(escapeHtml(text), math, (span) => renderMath(span, options.math));
}
