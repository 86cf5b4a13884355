/** A TeX span lifted out of markdown so the markdown parser cannot mangle it. */
export interface MathSpan {
  tex: string;
  display: boolean;
}

const PLACEHOLDER = (i: number) => `NBSERVEMATH${i}X`;
const PLACEHOLDER_RE = /NBSERVEMATH(\d+)X/g;

/**
 * Replaces `$$…$$`, `\[…\]`, `$…$` and `\(…\)` (outside code spans and fences) with
 * placeholders, as Jupyter does before running markdown, so `_` and `*` inside TeX survive.
 */
export function extractMath(source: string): { text: string; math: MathSpan[] } {
  const math: MathSpan[] = [];
  const pattern =
    /(```[\s\S]*?```|~~~[\s\S]*?~~~|`[^`\n]*`)|\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([\s\S]+?)\\\)|(?<![\\$])\$(?!\s)((?:\\.|[^$\\\n])+?)(?<!\s)\$/g;
  const text = source.replace(pattern, (whole, code, d1, d2, i1, i2) => {
    if (code !== undefined) return whole;
    const display = d1 !== undefined || d2 !== undefined;
    math.push({ tex: (d1 ?? d2 ?? i1 ?? i2) as string, display });
    return PLACEHOLDER(math.length - 1);
  });
  return { text, math };
}

/** Puts rendered math back where `extractMath` left placeholders. */
export function restoreMath(html: string, math: readonly MathSpan[], render: (span: MathSpan) => string): string {
  return html.replace(PLACEHOLDER_RE, (whole, index: string) => {
    const span = math[Number(index)];
    return span ? render(span) : whole;
  });
}
