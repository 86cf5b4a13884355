import * as base from '@jupyter-widgets/base';
import { type IManagerState, ManagerBase, serialize_state } from '@jupyter-widgets/base-manager';
import * as controls from '@jupyter-widgets/controls';
import { Widget as LuminoWidget } from '@lumino/widgets';
import type { KernelConnection } from '../kernel.js';
import type { KernelMessage } from '../messages.js';
import type { WidgetViews } from '../render-mime.js';
import { PageComm } from './comm.js';
import * as output from './output.js';
import { injectWidgetStyles } from './styles.js';

/** The widget modules this page has, by name and the major version of their model protocol. */
const MODULES: Record<string, { major: string; exports: Record<string, unknown> }> = {
  '@jupyter-widgets/base': { major: '2', exports: base },
  '@jupyter-widgets/controls': { major: '2', exports: controls },
  '@jupyter-widgets/output': { major: '1', exports: output },
};

/** How long a view waits for its output to enter the document. */
const ATTACH_WAIT_MS = 60_000;

/** How long the first widget view waits for the page to reach its kernel. */
const KERNEL_WAIT_MS = 8000;

/** How long loading the live widgets from the kernel may hold back rendering (a busy kernel answers late). */
const KERNEL_LOAD_MS = 5000;

/**
 * The notebook page's widget manager (ipywidgets 8): `@jupyter-widgets/base-manager` over the
 * page's kernel connection. Comm messages arrive in order through `handle`; views are Lumino
 * widgets attached into output areas.
 */
export class PageWidgetManager extends ManagerBase {
  private readonly comms = new Map<string, PageComm>();
  /** Every model, synchronously (saving a notebook cannot wait). */
  private readonly models = new Map<string, base.WidgetModel>();

  constructor(
    private readonly kernel: KernelConnection,
    /** The page's widget host: Output widgets draw the widgets they hold through it. */
    readonly views: WidgetViews,
  ) {
    super();
    injectWidgetStyles();
  }

  /**
   * Loads the kernel's live widgets (a reloaded page), then the saved state of the others. A page
   * that is still reaching its kernel waits for it a little: a live widget must not be shadowed
   * by its saved (dead) copy.
   */
  async restore(saved: unknown, connected: Promise<void>): Promise<void> {
    await Promise.race([connected, delay(KERNEL_WAIT_MS)]);
    if (this.kernel.kernelId && this.kernel.status !== 'dead') {
      await Promise.race([this._loadFromKernel().catch(() => undefined), delay(KERNEL_LOAD_MS)]);
    }
    const state = saved as IManagerState | undefined;
    if (state && typeof state === 'object' && state.state && typeof state.state === 'object') {
      await this.set_state(this.filterExistingModelState(state)).catch((e: unknown) => console.warn(e));
    }
  }

  /** One comm message from the kernel (iopub). */
  async handle(msg: KernelMessage): Promise<void> {
    const type = msg.header.msg_type;
    const id = String(msg.content.comm_id ?? '');
    if (type === 'comm_open') {
      if (msg.content.target_name !== this.comm_target_name || this.has_model(id)) return;
      // ipywidgets 6 (protocol 1) has other models: its widgets keep their text form.
      if (String(msg.metadata.version ?? '').split('.')[0] !== '2') return;
      const comm = new PageComm(this.kernel, this.comm_target_name, id);
      this.comms.set(id, comm);
      await this.handle_comm_open(comm, msg as never).catch((e: unknown) => console.warn(e));
    } else if (type === 'comm_msg') {
      await this.comms.get(id)?.receive(msg);
    } else if (type === 'comm_close') {
      const comm = this.comms.get(id);
      this.comms.delete(id);
      await comm?.closed(msg);
    }
  }

  /**
   * Renders a view of `modelId` into `el` once `el` is in the document (Lumino attaches only
   * there; cells are built off-screen first). Resolves false if there is no such model.
   */
  async display(modelId: string, el: HTMLElement): Promise<boolean> {
    if (!this.has_model(modelId)) return false;
    const model = await this.get_model(modelId);
    const view = await this.create_view<base.DOMWidgetView>(model as base.DOMWidgetModel, {});
    for (let waited = 0; !el.isConnected; waited += 50) {
      if (waited > ATTACH_WAIT_MS) return false; // the output was cleared before it was shown
      await delay(50);
    }
    LuminoWidget.attach(view.luminoWidget, el);
    return true;
  }

  /** Whether `modelId` has a comm to the kernel (not only a saved state). */
  isLive(modelId: string): boolean {
    return this.comms.has(modelId);
  }

  /** `application/vnd.jupyter.widget-state+json` of every model, as JupyterLab saves it. */
  stateForSave(): IManagerState | undefined {
    if (this.models.size === 0) return undefined;
    return serialize_state([...this.models.values()], { drop_defaults: true }) as IManagerState;
  }

  override register_model(modelId: string, modelPromise: Promise<base.WidgetModel>): void {
    super.register_model(modelId, modelPromise);
    void modelPromise.then(
      (model) => {
        this.models.set(modelId, model);
        model.once('comm:close', () => this.models.delete(modelId));
      },
      () => undefined,
    );
  }

  protected async loadClass(
    className: string,
    moduleName: string,
    moduleVersion: string,
  ): Promise<typeof base.WidgetModel | typeof base.WidgetView> {
    const module = MODULES[moduleName];
    if (!module || moduleVersion.replace(/^[\^~]/, '').split('.')[0] !== module.major)
      throw new Error(`The widget module ${moduleName}@${moduleVersion} is not available on this page`);
    const cls = module.exports[className];
    if (!cls) throw new Error(`Class ${className} not found in module ${moduleName}`);
    return cls as typeof base.WidgetModel;
  }

  protected async _create_comm(
    targetName: string,
    modelId?: string,
    data?: unknown,
    metadata?: Record<string, unknown>,
  ): Promise<base.IClassicComm> {
    const comm = new PageComm(this.kernel, targetName, modelId ?? base.uuid());
    this.comms.set(comm.comm_id, comm);
    if (data !== undefined || metadata !== undefined) comm.open((data ?? {}) as never, undefined, metadata);
    return comm;
  }

  protected async _get_comm_info(): Promise<Record<string, unknown>> {
    const reply = await this.kernel.ask('comm_info_request', { target_name: this.comm_target_name });
    return reply.status === 'ok' ? ((reply.comms as Record<string, unknown>) ?? {}) : {};
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
