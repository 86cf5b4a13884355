import type { KernelConnection } from '../kernel.js';
import type { KernelMessage } from '../messages.js';
import type { WidgetViews } from '../render-mime.js';
import type { PageWidgetManager } from './manager.js';

export const WIDGET_STATE_MIME = 'application/vnd.jupyter.widget-state+json';
/** How long a widget output waits for its model's comm_open before it keeps its text form. */
const MODEL_WAIT_MS = 10_000;

/**
 * The notebook page's side of Jupyter widgets, always loaded and small: it takes the kernel's
 * comm messages and the widget outputs, and loads the widget manager (manager.ts, the
 * `@jupyter-widgets` code: about half a megabyte) on the first of either. Until then a page
 * without widgets pays nothing.
 */
export class WidgetHost implements WidgetViews {
  private kernel: KernelConnection | undefined;
  private manager: Promise<PageWidgetManager> | undefined;
  private loaded: PageWidgetManager | undefined;
  private ready: Promise<void> = Promise.resolve();
  /** Comm messages are applied one after another, in the kernel's order. */
  private chain: Promise<void> = Promise.resolve();
  /** The notebook's saved widget state (`metadata.widgets`), for widgets no kernel has. */
  private saved: unknown;
  /** Settles when the page first reaches its kernel (whose live widgets win over saved ones). */
  private readonly connected: Promise<void>;
  private markConnected: () => void = () => {};

  constructor() {
    this.connected = new Promise((resolve) => {
      this.markConnected = resolve;
    });
  }

  /** Takes the comm messages of the page's kernel connection. */
  attach(kernel: KernelConnection): void {
    this.kernel = kernel;
    kernel.onComm = (msg) => this.onComm(msg);
    kernel.onConnect = () => this.markConnected();
  }

  /** The notebook's metadata as loaded (its saved widget state is used on the first widget output). */
  useMetadata(metadata: Record<string, unknown>): void {
    const widgets = metadata.widgets as Record<string, unknown> | undefined;
    this.saved = widgets?.[WIDGET_STATE_MIME];
  }

  /** The metadata to save: with the current widget state, once this page has widgets. */
  metadataForSave(metadata: Record<string, unknown>): Record<string, unknown> {
    const state = this.loaded?.stateForSave();
    if (!state) return metadata;
    return { ...metadata, widgets: { [WIDGET_STATE_MIME]: state } };
  }

  /**
   * An output with a widget view: `fallback` (its text/plain) is shown until the view is there,
   * and stays if no kernel and no saved state knows the widget. An untrusted output (a shared
   * notebook's outputs after a reload: the server's saves of the document are not signed) shows
   * only a model that is live in the page's kernel, made by code its users ran; a saved (and
   * possibly foreign) widget state is drawn in trusted outputs only, as JupyterLab does.
   */
  render(data: unknown, fallback: HTMLElement, trusted = true): HTMLElement {
    const box = document.createElement('div');
    box.className = 'widget-area';
    box.append(fallback);
    const modelId = (data as { model_id?: unknown } | undefined)?.model_id;
    if (typeof modelId !== 'string' || !this.kernel) return box;
    const view = document.createElement('div');
    view.className = 'widget-subarea';
    void this.load()
      .then(async (manager) => {
        await this.ready;
        await this.chain;
        // On a shared notebook the output comes through the document, which may be ahead of the
        // kernel's comm_open on the page's own socket: give that a moment to arrive.
        for (let waited = 0; !manager.has_model(modelId) && waited < MODEL_WAIT_MS; waited += 50) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          await this.chain;
        }
        if (!manager.has_model(modelId) || !(trusted || manager.isLive(modelId))) return;
        fallback.replaceWith(view);
        if (!(await manager.display(modelId, view))) view.replaceWith(fallback);
      })
      .catch((error: unknown) => console.warn('widget view failed', error));
    return box;
  }

  private onComm(msg: KernelMessage): void {
    // Before any widget exists there is nothing to update; a first comm_open loads the manager.
    if (!this.manager && msg.header.msg_type !== 'comm_open') return;
    const manager = this.load();
    this.chain = this.chain
      .then(async () => (await manager).handle(msg))
      .catch((error: unknown) => console.warn('widget message failed', error));
  }

  private load(): Promise<PageWidgetManager> {
    if (this.manager) return this.manager;
    const kernel = this.kernel as KernelConnection;
    this.manager = import('./manager.js').then(({ PageWidgetManager }) => {
      const manager = new PageWidgetManager(kernel, this);
      this.loaded = manager;
      return manager;
    });
    this.ready = this.manager.then((m) => m.restore(this.saved, this.connected)).catch(() => undefined);
    return this.manager;
  }
}
