import {
  autocompletion,
  type CompletionContext,
  type CompletionResult,
  closeBrackets,
  startCompletion,
} from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentLess, indentMore } from '@codemirror/commands';
import { bracketMatching, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, type Extension, Prec } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, type KeyBinding, keymap, lineNumbers } from '@codemirror/view';
import { classHighlighter, highlightCode } from '@lezer/highlight';
import { languageSupport, parserFor } from '../lib/code-languages.js';

/**
 * Static syntax-highlighted source for cells that have no editor yet: building a CodeMirror
 * view per cell is what makes big notebooks slow, so editors are created on first edit.
 */
export function highlightInto(pre: HTMLElement, code: string, language: string): void {
  const parser = parserFor(language);
  if (!parser || code.length > 20_000) {
    pre.textContent = code;
    return;
  }
  const fragment = document.createDocumentFragment();
  highlightCode(
    code,
    parser.parse(code),
    classHighlighter,
    (text, classes) => {
      if (classes) {
        const span = document.createElement('span');
        span.className = classes;
        span.textContent = text;
        fragment.append(span);
      } else {
        fragment.append(text);
      }
    },
    () => fragment.append('\n'),
  );
  pre.replaceChildren(fragment);
}

export interface EditorHooks {
  /** Notebook-level keys (Shift-Enter, Esc, …); run before CodeMirror's own. */
  keys: KeyBinding[];
  complete?(code: string, cursor: number): Promise<{ from: number; to: number; matches: string[] } | undefined>;
  inspect?(code: string, cursor: number): void;
  onChange(text: string): void;
  onFocus(): void;
  /** The binding to a shared document (collab/): it brings its own, per-client undo history. */
  shared?: Extension | undefined;
}

/** Line numbers of an editor, switched on and off (L in the notebook, the editor page's toggle). */
const gutter = new Compartment();

export function showLineNumbers(view: EditorView, on: boolean): void {
  view.dispatch({ effects: gutter.reconfigure(on ? lineNumbers() : []) });
}

export function createEditor(
  parent: HTMLElement,
  doc: string,
  language: string,
  hooks: EditorHooks,
  numbered = false,
): EditorView {
  const lang = languageSupport(language);
  type Completion = { from: number; to: number; matches: string[] };
  /** The kernel's answer Tab already has, so the popup does not ask again. */
  let asked: { code: string; pos: number; result: Completion } | undefined;
  const completionSource = async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    if (!hooks.complete) return null;
    const code = ctx.state.doc.toString();
    const known = asked?.code === code && asked.pos === ctx.pos ? asked.result : undefined;
    asked = undefined;
    const result = known ?? (await hooks.complete(code, ctx.pos));
    if (!result || result.matches.length === 0) return null;
    return { from: result.from, to: result.to, options: result.matches.map((label) => ({ label })), filter: false };
  };
  const tabKeys: KeyBinding[] = [
    {
      key: 'Tab',
      run: (view) => {
        const { from, empty } = view.state.selection.main;
        const before = view.state.doc.lineAt(from);
        const prefix = view.state.sliceDoc(before.from, from);
        if (!empty || /^\s*$/.test(prefix)) return indentMore(view);
        if (!hooks.complete) return startCompletion(view);
        // One match is inserted at once (as Notebook does); several open the popup.
        const code = view.state.doc.toString();
        void hooks.complete(code, from).then((result) => {
          if (!result || view.state.doc.toString() !== code) return;
          const [only, ...more] = result.matches;
          if (only === undefined) return;
          if (more.length > 0) {
            asked = { code, pos: from, result };
            startCompletion(view);
            return;
          }
          view.dispatch({
            changes: { from: result.from, to: result.to, insert: only },
            selection: { anchor: result.from + only.length },
          });
        });
        return true;
      },
    },
    {
      key: 'Shift-Tab',
      run: (view) => {
        const { from, empty } = view.state.selection.main;
        if (!empty) return indentLess(view);
        hooks.inspect?.(view.state.doc.toString(), from);
        return true;
      },
    },
  ];
  const extensions: Extension[] = [
    Prec.highest(keymap.of(hooks.keys)),
    Prec.high(keymap.of(tabKeys)),
    gutter.of(numbered ? lineNumbers() : []),
    hooks.shared ?? history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    indentUnit.of('    '),
    syntaxHighlighting(classHighlighter),
    autocompletion({ override: [completionSource], activateOnTyping: false, icons: false }),
    keymap.of(hooks.shared ? defaultKeymap : [...defaultKeymap, ...historyKeymap]),
    EditorView.lineWrapping,
    EditorView.updateListener.of((update) => {
      if (update.docChanged) hooks.onChange(update.state.doc.toString());
      if (update.focusChanged && update.view.hasFocus) hooks.onFocus();
    }),
  ];
  if (lang) extensions.push(lang);
  return new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
}
