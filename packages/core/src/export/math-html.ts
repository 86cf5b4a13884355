import katex from 'katex';
import { escapeHtml } from '../html/escape.js';
import { extractMath, type MathSpan, restoreMath } from './math.js';

/**
 * TeX to MathML with KaTeX, on the server: the exported page runs no scripts and loads no fonts,
 * and browsers render MathML themselves. KaTeX keeps the TeX, every backslash of it, in the
 * MathML's `<annotation encoding="application/x-tex">`; without `trust` it renders no links or
 * raw HTML, and a TeX error becomes the escaped source in a `katex-error` span.
 */
export function renderMathMl(span: MathSpan): string {
  return katex.renderToString(span.tex, { displayMode: span.display, throwOnError: false, output: 'mathml' });
}

/** Replaces the math of `source` by placeholders, `render`s the rest, then puts the math back rendered. */
export function withMath(source: string, render: (text: string) => string): string {
  const { text, math } = extractMath(source);
  return restoreMath(render(text), math, renderMathMl);
}

/** A `text/latex` output: usually `$…$` or `$$…$$`, sometimes a bare environment (display math). */
export function latexToHtml(source: string): string {
  const trimmed = source.trim();
  const { text, math } = extractMath(trimmed);
  if (math.length === 0) return renderMathMl({ tex: trimmed, display: true });
  return restoreMath(escapeHtml(text), math, renderMathMl);
}
