import { closeBrackets } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentLess, indentMore } from '@codemirror/commands';
import { bracketMatching, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { highlightSelectionMatches, openSearchPanel, search, searchKeymap } from '@codemirror/search';
import { Compartment, EditorState, type Extension, Prec } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import { languageSupport } from './lib/code-languages.js';

/** The languages the editor page offers, by name; the file's extension picks the first one. */
export const LANGUAGES = {
  text: { label: 'Plain text', extensions: ['txt'] },
  python: { label: 'Python', extensions: ['py', 'pyw', 'pyi'] },
  javascript: { label: 'JavaScript', extensions: ['js', 'mjs', 'cjs', 'jsx'] },
  typescript: { label: 'TypeScript', extensions: ['ts', 'mts', 'cts', 'tsx'] },
  markdown: { label: 'Markdown', extensions: ['md', 'markdown'] },
} as const;
export type Language = keyof typeof LANGUAGES;

export function languageOf(path: string): Language {
  const ext = path.split('.').pop()?.toLowerCase() ?? '';
  const found = Object.entries(LANGUAGES).find(([, l]) => (l.extensions as readonly string[]).includes(ext));
  return (found?.[0] as Language | undefined) ?? 'text';
}

/** The text editor page's editor: search (Ctrl-F), line numbers and language switchable, Ctrl-S. */
export class FileEditor {
  readonly view: EditorView;
  private readonly language = new Compartment();
  private readonly gutter = new Compartment();
  lineNumbers = true;

  constructor(parent: HTMLElement, doc: string, language: Language, onChange: () => void, save: () => void) {
    const extensions: Extension[] = [
      Prec.highest(
        keymap.of([
          {
            key: 'Mod-s',
            preventDefault: true,
            run: () => {
              save();
              return true;
            },
          },
        ]),
      ),
      this.gutter.of(lineNumbers()),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      closeBrackets(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      search({ top: true }),
      syntaxHighlighting(classHighlighter),
      keymap.of([
        ...searchKeymap,
        ...defaultKeymap,
        ...historyKeymap,
        { key: 'Tab', run: indentMore },
        { key: 'Shift-Tab', run: indentLess },
      ]),
      this.language.of(languageSupport(language) ?? []),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) onChange();
      }),
    ];
    this.view = new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
  }

  setLanguage(language: Language): void {
    this.view.dispatch({ effects: this.language.reconfigure(languageSupport(language) ?? []) });
  }

  setLineNumbers(on: boolean): void {
    this.lineNumbers = on;
    this.view.dispatch({ effects: this.gutter.reconfigure(on ? lineNumbers() : []) });
  }

  openSearch(): void {
    openSearchPanel(this.view);
  }
}
