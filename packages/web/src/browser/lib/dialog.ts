import { h } from './dom.js';

export interface DialogButton<T> {
  label: string;
  value: T;
  primary?: boolean;
  danger?: boolean;
}

/** A modal dialog (native <dialog>); resolves with the clicked button's value, or `cancel` on Esc. */
export function showDialog<T>(options: {
  title: string;
  body: Node | string;
  buttons: DialogButton<T>[];
  cancel: T;
}): Promise<T> {
  return new Promise((resolve) => {
    const dialog = h('dialog', { className: 'modal', 'aria-label': options.title });
    const footer = h('div', { className: 'modal-buttons' });
    let settled = false;
    const finish = (value: T) => {
      if (settled) return;
      settled = true;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    for (const button of options.buttons) {
      const cls = `btn${button.primary ? ' btn-primary' : ''}${button.danger ? ' btn-danger' : ''}`;
      footer.append(h('button', { type: 'button', className: cls, onclick: () => finish(button.value) }, button.label));
    }
    dialog.append(h('h2', {}, options.title), h('div', { className: 'modal-body' }, options.body), footer);
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish(options.cancel);
    });
    document.body.append(dialog);
    dialog.showModal();
    (footer.querySelector('.btn-primary') as HTMLElement | null)?.focus();
  });
}

export async function confirmDialog(title: string, message: string, action = 'OK', danger = false): Promise<boolean> {
  return showDialog({
    title,
    body: message,
    cancel: false,
    buttons: [
      { label: 'Cancel', value: false },
      { label: action, value: true, primary: true, danger },
    ],
  });
}

/** Asks for one line of text; resolves `undefined` when cancelled. */
export function promptDialog(title: string, label: string, value = ''): Promise<string | undefined> {
  return new Promise((resolve) => {
    const input = h('input', { type: 'text', className: 'modal-input', value, 'aria-label': label });
    const form = h('form', { method: 'dialog' }, h('label', {}, label, input));
    const dialog = h('dialog', { className: 'modal', 'aria-label': title });
    const done = (result: string | undefined) => {
      dialog.close();
      dialog.remove();
      resolve(result);
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      done(input.value);
    });
    const buttons = h(
      'div',
      { className: 'modal-buttons' },
      h('button', { type: 'button', className: 'btn', onclick: () => done(undefined) }, 'Cancel'),
      h('button', { type: 'submit', className: 'btn btn-primary' }, 'OK'),
    );
    form.append(buttons);
    dialog.append(h('h2', {}, title), form);
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(undefined);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
    // Select the stem so typing replaces the name but keeps the extension.
    const dot = value.lastIndexOf('.');
    input.setSelectionRange(0, dot > 0 ? dot : value.length);
  });
}
