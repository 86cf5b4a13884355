import { h } from '../lib/dom.js';
import type { KernelConnection, KernelStatus } from './kernel.js';

type NoticeKind = 'dead' | 'died';

/**
 * A bar under the notebook's header that says what happened to the kernel and what can be done,
 * as Notebook 6.4's "Dead kernel" and "The kernel appears to have died" dialogs do: a kernel shut
 * down elsewhere (or dead for good) offers a new kernel of the same kernelspec; a kernel that died
 * and is being restarted by the server is said until the next cell runs or the bar is closed.
 */
export class KernelNotice {
  readonly element = h('div', { className: 'kernel-banner', role: 'alert', hidden: true });
  private kind: NoticeKind | undefined;

  /** `startNew` starts a new kernel for the notebook (see KernelConnection.replaceKernel). */
  constructor(
    kernel: KernelConnection,
    private readonly startNew: () => Promise<void>,
  ) {
    kernel.onAutoRestart = () =>
      this.show('died', 'The kernel appears to have died. It will restart automatically. Its variables are gone.');
    kernel.onExecute = () => {
      if (this.kind === 'died') this.hide();
    };
  }

  /** Follows the kernel's status: a dead kernel is offered a replacement; a live one needs none. */
  status(status: KernelStatus): void {
    if (status === 'dead') {
      this.show('dead', 'Dead kernel: the kernel was shut down or has died, and its variables are gone.', {
        label: 'Start a new kernel',
        run: () => this.startNew(),
      });
    } else if (this.kind === 'dead' && (status === 'idle' || status === 'busy')) {
      this.hide();
    }
  }

  hide(): void {
    this.kind = undefined;
    this.element.hidden = true;
    this.element.replaceChildren();
  }

  private show(kind: NoticeKind, message: string, action?: { label: string; run: () => Promise<void> }): void {
    this.kind = kind;
    this.element.dataset.kind = kind;
    const buttons: HTMLElement[] = [];
    if (action) {
      const button = h('button', { type: 'button', className: 'btn btn-primary' }, action.label);
      button.addEventListener('click', () => {
        button.disabled = true;
        this.hide();
        void action.run().catch((error: unknown) => {
          window.dispatchEvent(
            new CustomEvent('nbserve-error', { detail: error instanceof Error ? error.message : String(error) }),
          );
        });
      });
      buttons.push(button);
    }
    const close = h('button', { type: 'button', className: 'kernel-banner-close', 'aria-label': 'Close' }, '×');
    close.addEventListener('click', () => this.hide());
    this.element.replaceChildren(h('span', { className: 'kernel-banner-text' }, message), ...buttons, close);
    this.element.hidden = false;
  }
}
