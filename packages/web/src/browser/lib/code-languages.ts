import { javascript, javascriptLanguage, typescriptLanguage } from '@codemirror/lang-javascript';
import { markdown, markdownLanguage } from '@codemirror/lang-markdown';
import { python, pythonLanguage } from '@codemirror/lang-python';
import type { LanguageSupport } from '@codemirror/language';

/** CodeMirror's support (parser, indentation) for a kernel's or a file's language; undefined: plain text. */
export function languageSupport(language: string): LanguageSupport | undefined {
  switch (language.toLowerCase()) {
    case 'python':
    case 'ipython':
    case 'ipython3':
      return python();
    case 'javascript':
    case 'js':
      return javascript();
    case 'typescript':
    case 'ts':
      return javascript({ typescript: true });
    case 'markdown':
      return markdown();
    default:
      return undefined;
  }
}

/** The parser of a language, for highlighting code without an editor. */
export function parserFor(language: string): typeof markdownLanguage.parser | undefined {
  switch (language.toLowerCase()) {
    case 'python':
    case 'ipython':
    case 'ipython3':
      return pythonLanguage.parser;
    case 'javascript':
      return javascriptLanguage.parser;
    case 'typescript':
      return typescriptLanguage.parser;
    case 'markdown':
      return markdownLanguage.parser;
    default:
      return undefined;
  }
}
