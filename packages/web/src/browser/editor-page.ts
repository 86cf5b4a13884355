import './../styles/base.css';
import './../styles/editor.css';
import './lib/theme.js';
import { basename, dirname, joinPath, url } from '../shared/paths.js';
import { FileEditor, LANGUAGES, type Language, languageOf } from './file-editor-view.js';
import { api, type ContentsModel, contentsRoute, getContents } from './lib/api.js';
import { pageConfig } from './lib/config.js';
import { promptDialog, showDialog } from './lib/dialog.js';
import { h, toast } from './lib/dom.js';
import { themeToggle } from './lib/theme.js';

/** The text editor page (`/edit/<path>`): CodeMirror, search, language, line numbers, Ctrl-S, rename, conflict check. */
async function main(): Promise<void> {
  const { baseUrl } = pageConfig();
  let path = pageConfig().path;
  let dirty = false;
  let known: { hash: string | null; lastModified: string } = { hash: null, lastModified: '' };
  const model = await getContents(path, { type: 'file', format: 'text' });
  const fresh = await getContents(path, { content: '0', hash: '1' }).catch(() => model);
  known = { hash: fresh.hash ?? null, lastModified: fresh.last_modified };
  const nameEl = h('button', { type: 'button', className: 'notebook-name', title: 'Rename file' }, basename(path));
  const state = h('span', { className: 'save-state' }, 'Saved');
  const host = h('div', { className: 'file-editor' });
  const setDirty = (d: boolean) => {
    dirty = d;
    state.textContent = d ? '(unsaved changes)' : `Saved ${new Date().toLocaleTimeString()}`;
    state.dataset.state = d ? 'dirty' : 'saved';
  };
  const save = async () => {
    const now = await getContents(path, { content: '0', hash: '1' }).catch(() => undefined);
    const changed =
      now && (now.hash && known.hash ? now.hash !== known.hash : now.last_modified !== known.lastModified);
    if (changed) {
      const choice = await showDialog({
        title: 'File changed',
        body: 'The file has changed on disk since it was opened. Overwrite it?',
        cancel: false,
        buttons: [
          { label: 'Cancel', value: false },
          { label: 'Overwrite', value: true, primary: true, danger: true },
        ],
      });
      if (!choice) return;
    }
    await api<ContentsModel>(contentsRoute(path), {
      method: 'PUT',
      body: { type: 'file', format: 'text', content: editor.view.state.doc.toString() },
    });
    const after = await getContents(path, { content: '0', hash: '1' });
    known = { hash: after.hash ?? null, lastModified: after.last_modified };
    setDirty(false);
  };
  const saveSafely = () =>
    void save().catch((e: unknown) => toast(e instanceof Error ? e.message : String(e), 'error'));
  nameEl.addEventListener('click', () => {
    void (async () => {
      const name = await promptDialog('Rename file', 'File name', basename(path));
      if (!name || name === basename(path) || name.includes('/')) return;
      const target = joinPath(dirname(path), name);
      await api(contentsRoute(path), { method: 'PATCH', body: { path: target } });
      path = target;
      nameEl.textContent = name;
      document.title = `${name} – nbserve`;
      history.replaceState(null, '', url(baseUrl, 'edit', target));
    })().catch((e: unknown) => toast(e instanceof Error ? e.message : String(e), 'error'));
  });
  const languageSelect = h(
    'select',
    { className: 'editor-language', 'aria-label': 'Language' },
    ...Object.entries(LANGUAGES).map(([name, l]) => h('option', { value: name }, l.label)),
  );
  languageSelect.value = languageOf(path);
  languageSelect.addEventListener('change', () => editor.setLanguage(languageSelect.value as Language));
  const numbersToggle = h('input', { type: 'checkbox', checked: true, className: 'editor-line-numbers' });
  numbersToggle.addEventListener('change', () => editor.setLineNumbers(numbersToggle.checked));
  document.body.replaceChildren(
    h(
      'header',
      { className: 'topbar' },
      h('a', { className: 'brand', href: url(baseUrl, 'tree', dirname(path)) }, 'nbserve'),
      nameEl,
      state,
      h('div', { className: 'spacer' }),
      h('button', { type: 'button', className: 'btn editor-find', onclick: () => editor.openSearch() }, 'Find'),
      languageSelect,
      h('label', { className: 'editor-option' }, numbersToggle, 'Line numbers'),
      h('button', { type: 'button', className: 'btn btn-primary', onclick: saveSafely }, 'Save'),
      h('a', { className: 'btn', href: `${url(baseUrl, 'files', path)}?download=1` }, 'Download'),
      themeToggle(),
    ),
    h('main', { className: 'editor-main' }, host),
  );
  document.title = `${basename(path)} – nbserve`;
  const editor = new FileEditor(
    host,
    typeof model.content === 'string' ? model.content : '',
    languageOf(path),
    () => setDirty(true),
    saveSafely,
  );
  editor.view.focus();
  // Ctrl-S and Ctrl-F also when the focus is outside the text (a button, the page)
  document.addEventListener('keydown', (e) => {
    if (!(e.ctrlKey || e.metaKey) || editor.view.hasFocus) return;
    const key = e.key.toLowerCase();
    if (key === 's') saveSafely();
    else if (key === 'f') editor.openSearch();
    else return;
    e.preventDefault();
  });
  window.addEventListener('beforeunload', (e) => {
    if (!dirty) return;
    e.preventDefault();
    e.returnValue = '';
  });
  document.body.dataset.ready = 'true';
}

main().catch((error: unknown) => {
  document.body.dataset.error = error instanceof Error ? error.message : String(error);
  toast(`Could not open the file: ${document.body.dataset.error}`, 'error');
});
