import { joinSource, notebookLanguage } from './notebook.js';
import { stripAnsi } from './strip-ansi.js';
import type { Exporter, ExportRequest, ExportResult } from './types.js';

interface LanguageSyntax {
  comment: string;
  extension: string;
  mimetype: string;
}

const HASH = (extension: string, mimetype: string): LanguageSyntax => ({ comment: '#', extension, mimetype });
const SLASH = (extension: string, mimetype: string): LanguageSyntax => ({ comment: '//', extension, mimetype });

const LANGUAGES: Record<string, LanguageSyntax> = {
  python: HASH('.py', 'text/x-python'),
  r: HASH('.r', 'text/x-r'),
  julia: HASH('.jl', 'text/x-julia'),
  ruby: HASH('.rb', 'text/x-ruby'),
  bash: HASH('.sh', 'text/x-sh'),
  sh: HASH('.sh', 'text/x-sh'),
  perl: HASH('.pl', 'text/x-perl'),
  javascript: SLASH('.js', 'text/javascript'),
  typescript: SLASH('.ts', 'text/typescript'),
  c: SLASH('.c', 'text/x-csrc'),
  'c++': SLASH('.cpp', 'text/x-c++src'),
  cpp: SLASH('.cpp', 'text/x-c++src'),
  java: SLASH('.java', 'text/x-java'),
  go: SLASH('.go', 'text/x-go'),
  rust: SLASH('.rs', 'text/x-rustsrc'),
  scala: SLASH('.scala', 'text/x-scala'),
  kotlin: SLASH('.kt', 'text/x-kotlin'),
  csharp: SLASH('.cs', 'text/x-csharp'),
  sql: { comment: '--', extension: '.sql', mimetype: 'text/x-sql' },
  haskell: { comment: '--', extension: '.hs', mimetype: 'text/x-haskell' },
  lua: { comment: '--', extension: '.lua', mimetype: 'text/x-lua' },
  matlab: { comment: '%', extension: '.m', mimetype: 'text/x-matlab' },
  octave: { comment: '%', extension: '.m', mimetype: 'text/x-octave' },
};

/** The syntax of a notebook's language; unknown languages still export, with `#` comments. */
export function languageSyntax(
  language: string,
  languageInfo?: { file_extension?: string | undefined; mimetype?: string | undefined },
) {
  const known = LANGUAGES[language] ?? HASH('.txt', 'text/plain');
  const extension = /^\.[\w+-]{1,16}$/.test(languageInfo?.file_extension ?? '')
    ? (languageInfo?.file_extension as string)
    : known.extension;
  const mimetype = /^[\w.+-]+\/[\w.+-]+$/.test(languageInfo?.mimetype ?? '')
    ? (languageInfo?.mimetype as string)
    : known.mimetype;
  return { comment: known.comment, extension, mimetype };
}

/**
 * The notebook as a program in its own language, laid out like nbconvert's script exporter:
 * code cells under `In[n]` markers, markdown and raw cells as comments.
 */
export class ScriptExporter implements Exporter {
  readonly format = 'script';
  readonly outputMimetype = '';

  async export({ notebook }: ExportRequest): Promise<ExportResult> {
    const language = notebookLanguage(notebook);
    const syntax = languageSyntax(language, notebook.metadata.language_info);
    const c = syntax.comment;
    const parts: string[] = [];
    if (language === 'python') parts.push(`#!/usr/bin/env python\n${c} coding: utf-8\n`);
    for (const cell of notebook.cells) {
      const source = joinSource(cell.source);
      if (cell.cell_type === 'code') {
        const count = cell.execution_count ?? ' ';
        parts.push(`${c} In[${count}]:\n\n\n${source}\n`);
      } else if (source.trim() !== '') {
        const commented = stripAnsi(source)
          .split('\n')
          .map((line) => (line === '' ? c : `${c} ${line}`))
          .join('\n');
        parts.push(`${commented}\n`);
      }
    }
    return { body: `${parts.join('\n\n')}\n`, mimetype: syntax.mimetype, extension: syntax.extension };
  }
}
