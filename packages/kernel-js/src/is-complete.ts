import { parse, tokenizer, tokTypes } from 'acorn';

export interface IsCompleteReply {
  status: 'complete' | 'incomplete' | 'invalid';
  indent?: string;
}

const OPENERS = new Set([tokTypes.parenL, tokTypes.bracketL, tokTypes.braceL, tokTypes.dollarBraceL]);
const CLOSERS = new Set([tokTypes.parenR, tokTypes.bracketR, tokTypes.braceR]);

function parses(code: string): { ok: true } | { ok: false; atEnd: boolean } {
  const options = { ecmaVersion: 'latest', allowAwaitOutsideFunction: true, allowHashBang: true } as const;
  for (const sourceType of ['module', 'script'] as const) {
    try {
      parse(code, { ...options, sourceType });
      return { ok: true };
    } catch (error) {
      const e = error as { pos?: number; message?: string };
      if (sourceType === 'script') {
        const unterminated = /Unterminated/.test(e.message ?? '');
        const atEnd = unterminated || (e.pos ?? 0) >= code.trimEnd().length;
        return { ok: false, atEnd };
      }
    }
  }
  return { ok: false, atEnd: false };
}

/** Bracket depth at the end of the code, counted on real tokens (strings and comments skip). */
function openDepth(code: string): number {
  let depth = 0;
  try {
    for (const token of tokenizer(code, { ecmaVersion: 'latest', allowHashBang: true })) {
      if (OPENERS.has(token.type)) depth++;
      else if (CLOSERS.has(token.type)) depth = Math.max(0, depth - 1);
    }
  } catch {
    // An unterminated string or template: the depth counted so far is what matters.
  }
  return depth;
}

/** Whether a console frontend should run the code or ask for another line. */
export function isComplete(code: string): IsCompleteReply {
  if (code.trim() === '') return { status: 'complete' };
  const result = parses(code);
  if (result.ok) return { status: 'complete' };
  if (!result.atEnd) return { status: 'invalid' };
  return { status: 'incomplete', indent: '  '.repeat(openDepth(code)) };
}
