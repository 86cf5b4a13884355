/**
 * The kernel side of Jupyter widgets (ipywidgets 8, widget message protocol 2.1) for the
 * JavaScript kernel: the global `widgets` object of a notebook. Each widget opens a
 * `jupyter.widget` comm whose state the frontend renders with the `@jupyter-widgets/controls`
 * models; frontend updates come back as `update` messages, are echoed (`echo_update`) and fire
 * the widget's observers. Protocol: https://github.com/jupyter-widgets/ipywidgets/blob/main/packages/schema/messages.md
 * Model attributes: https://github.com/jupyter-widgets/ipywidgets/blob/main/packages/schema/jupyterwidgetmodels.latest.md
 */
import { randomUUID } from 'node:crypto';
import type { CommMessage } from './messages.js';
import { MIMEBUNDLE, plainText, render } from './render.js';

const PROTOCOL_VERSION = '2.1.0';
const CONTROLS = '@jupyter-widgets/controls';
const BASE = '@jupyter-widgets/base';
const OUTPUT = '@jupyter-widgets/output';
const VIEW_MIME = 'application/vnd.jupyter.widget-view+json';

type State = Record<string, unknown>;
export interface Change {
  name: string;
  old: unknown;
  new: unknown;
  owner: Widget;
  type: 'change';
}
type Observer = (change: Change) => void;

/** What the worker gives the widgets: a way to publish comm messages under the current parent. */
export interface WidgetsHost {
  post(message: CommMessage): void;
}

let host: WidgetsHost | undefined;
const live = new Map<string, Widget>();

/** A serialized reference to another widget: `IPY_MODEL_<id>`. */
function toJson(value: unknown): unknown {
  if (value instanceof Widget) return `IPY_MODEL_${value.model_id}`;
  if (Array.isArray(value)) return value.map(toJson);
  return value;
}

function fromJson(value: unknown): unknown {
  if (typeof value === 'string' && value.startsWith('IPY_MODEL_')) return live.get(value.slice(10)) ?? value;
  if (Array.isArray(value)) return value.map(fromJson);
  return value;
}

function send(commId: string, data: State): void {
  host?.post({ msgType: 'comm_msg', content: { comm_id: commId, data } });
}

/** One widget: a model whose listed attributes are synced with every frontend. */
export class Widget {
  readonly model_id = randomUUID().replace(/-/g, '');
  readonly #state: State;
  readonly #observers: { fn: Observer; names: Set<string> | undefined }[] = [];
  readonly #messageHandlers: ((content: unknown, buffers: unknown[]) => void)[] = [];
  /** Attribute values just received from a frontend: not sent back as an `update`. */
  #lock: State = {};
  #closed = false;

  constructor(state: State, options: State = {}) {
    this.#state = { ...state };
    for (const key of Object.keys(this.#state)) {
      if (key.startsWith('_')) continue;
      Object.defineProperty(this, key, {
        enumerable: true,
        get: () => this.#state[key],
        set: (value: unknown) => this.set(key, value),
      });
    }
    for (const [key, value] of Object.entries(options)) if (key in this.#state) this.#state[key] = value;
    live.set(this.model_id, this);
    host?.post({
      msgType: 'comm_open',
      content: {
        comm_id: this.model_id,
        target_name: 'jupyter.widget',
        data: { state: this.getState(), buffer_paths: [] },
      },
      metadata: { version: PROTOCOL_VERSION },
    });
  }

  /** The serialized state, as sent on the wire and saved in notebooks. */
  getState(keys: Iterable<string> = Object.keys(this.#state)): State {
    const out: State = {};
    for (const key of keys) out[key] = toJson(this.#state[key]);
    return out;
  }

  get(name: string): unknown {
    return this.#state[name];
  }

  /** Sets an attribute: frontends are updated first, then observers run (as in ipywidgets). */
  set(name: string, value: unknown): void {
    if (!(name in this.#state)) throw new Error(`${this.constructor.name} has no attribute ${JSON.stringify(name)}`);
    const old = this.#state[name];
    if (Object.is(old, value)) return;
    this.#state[name] = value;
    const json = toJson(value);
    const locked = name in this.#lock && JSON.stringify(this.#lock[name]) === JSON.stringify(json);
    if (!locked && !this.#closed) send(this.model_id, { method: 'update', state: { [name]: json }, buffer_paths: [] });
    this.#notify({ name, old, new: value, owner: this, type: 'change' });
  }

  /** `fn` runs after each change of the named attributes (all attributes without names). */
  observe(fn: Observer, names?: string | string[]): this {
    const list = names === undefined ? undefined : new Set(typeof names === 'string' ? [names] : names);
    this.#observers.push({ fn, names: list });
    return this;
  }

  unobserve(fn: Observer): this {
    const index = this.#observers.findIndex((o) => o.fn === fn);
    if (index >= 0) this.#observers.splice(index, 1);
    return this;
  }

  /** A custom message to the frontend model. */
  send(content: unknown): void {
    send(this.model_id, { method: 'custom', content });
  }

  /** Custom messages from the frontend (a Button's clicks arrive this way). */
  onMsg(handler: (content: unknown, buffers: unknown[]) => void): this {
    this.#messageHandlers.push(handler);
    return this;
  }

  /** Closes the comm: every view of the widget disappears. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    live.delete(this.model_id);
    host?.post({ msgType: 'comm_close', content: { comm_id: this.model_id, data: {} } });
  }

  #notify(change: Change): void {
    for (const o of [...this.#observers]) if (!o.names || o.names.has(change.name)) o.fn(change);
  }

  /** A message a frontend sent on this widget's comm. */
  handle(data: State, buffers: unknown[]): void {
    if (data.method === 'update' && typeof data.state === 'object' && data.state !== null) {
      const state = data.state as State;
      const known = Object.keys(state).filter((k) => k in this.#state);
      if (known.length > 0)
        send(this.model_id, { method: 'echo_update', state: this.#pick(state, known), buffer_paths: [] });
      this.#lock = state;
      try {
        for (const key of known) this.set(key, fromJson(state[key]));
      } finally {
        this.#lock = {};
      }
    } else if (data.method === 'request_state') {
      send(this.model_id, { method: 'update', state: this.getState(), buffer_paths: [] });
    } else if (data.method === 'custom') {
      for (const handler of [...this.#messageHandlers]) handler(data.content, buffers);
    }
  }

  #pick(state: State, keys: string[]): State {
    return Object.fromEntries(keys.map((k) => [k, state[k]]));
  }

  /** The `keys` worth showing in the text form, e.g. `IntSlider(value=3, max=10)`. */
  reprKeys(): string[] {
    return ['value', 'description'].filter((k) => k in this.#state);
  }

  [MIMEBUNDLE](): Record<string, unknown> {
    const name = String(this.#state._model_name ?? 'Widget').replace(/Model$/, '');
    const parts = this.reprKeys()
      .filter((k) => this.#state[k] !== '' && this.#state[k] !== undefined)
      .map((k) => `${k}=${plainText(this.#state[k])}`);
    const bundle: Record<string, unknown> = { 'text/plain': `${name}(${parts.join(', ')})` };
    if (this.#state._view_name) bundle[VIEW_MIME] = { version_major: 2, version_minor: 0, model_id: this.model_id };
    return bundle;
  }
}

function modelState(module: string, model: string, view: string | null, viewModule = module): State {
  return {
    _model_module: module,
    _model_module_version: module === OUTPUT ? '1.0.0' : '2.0.0',
    _model_name: model,
    _view_module: viewModule,
    _view_module_version: viewModule === OUTPUT ? '1.0.0' : '2.0.0',
    _view_name: view,
    _view_count: null,
  };
}

const LAYOUT_KEYS = [
  'align_content align_items align_self border_bottom border_left border_right border_top bottom display flex',
  'flex_flow grid_area grid_auto_columns grid_auto_flow grid_auto_rows grid_column grid_gap grid_row',
  'grid_template_areas grid_template_columns grid_template_rows height justify_content justify_items left',
  'margin max_height max_width min_height min_width object_fit object_position order overflow padding right',
  'top visibility width',
].join(' ');

/** CSS of a widget's box (`layout.width = '300px'`). */
export class Layout extends Widget {
  constructor(options: State = {}) {
    super({ ...modelState(BASE, 'LayoutModel', 'LayoutView'), ...nulls(LAYOUT_KEYS) }, options);
  }
}

function style(model: string, extra: State): (options?: State) => Widget {
  return (options = {}) =>
    new Widget({ ...modelState(CONTROLS, model, 'StyleView', BASE), description_width: '', ...extra }, options);
}

const nulls = (keys: string) => Object.fromEntries(keys.split(' ').map((k) => [k, null]));
const FONT = 'font_family font_size font_style font_variant font_weight text_color text_decoration';
const STYLES = {
  slider: style('SliderStyleModel', nulls('handle_color')),
  progress: style('ProgressStyleModel', nulls('bar_color')),
  description: style('DescriptionStyleModel', {}),
  label: style('LabelStyleModel', nulls(`background ${FONT}`)),
  html: style('HTMLStyleModel', nulls('background font_size text_color')),
  text: style('TextStyleModel', nulls('background font_size text_color')),
  button: style('ButtonStyleModel', nulls(`button_color ${FONT}`)),
} as const;

/** A widget shown on the page: it has a layout (and, for controls, a style). */
function domState(model: string, view: string, module: string, own: State, styleOf?: keyof typeof STYLES): State {
  const base: State = {
    ...modelState(module, model, view),
    _dom_classes: [],
    layout: new Layout(),
    tabbable: null,
    tooltip: null,
    ...own,
  };
  if (styleOf) base.style = STYLES[styleOf]();
  return base;
}

const describe = { description: '', description_allow_html: false };

/** Builds a widget class from its model name and default attributes. */
function control(model: string, view: string, own: () => State, styleOf?: keyof typeof STYLES, module = CONTROLS) {
  return class extends Widget {
    static readonly modelName = model;
    constructor(options: State = {}) {
      super(domState(`${model}Model`, view, module, own(), styleOf), options);
    }
  };
}

const slider = (value: number, step: number, format: string) => () => ({
  ...describe,
  value,
  min: 0,
  max: 100,
  step,
  behavior: 'drag-tap',
  continuous_update: true,
  disabled: false,
  orientation: 'horizontal',
  readout: true,
  readout_format: format,
});
const progress = (value: number) => () => ({
  ...describe,
  value,
  min: 0,
  max: 100,
  bar_style: '',
  orientation: 'horizontal',
});
const text = () => ({ ...describe, value: '', placeholder: '\u200b' });
const box = () => ({ box_style: '', children: [] });

export const IntSlider = control('IntSlider', 'IntSliderView', slider(0, 1, 'd'), 'slider');
export const FloatSlider = control('FloatSlider', 'FloatSliderView', slider(0, 0.1, '.2f'), 'slider');
export const IntProgress = control('IntProgress', 'ProgressView', progress(0), 'progress');
export const FloatProgress = control('FloatProgress', 'ProgressView', progress(0), 'progress');
export const Label = control('Label', 'LabelView', text, 'label');
export const HTML = control('HTML', 'HTMLView', text, 'html');
export const Text = control(
  'Text',
  'TextView',
  () => ({ ...text(), continuous_update: true, disabled: false }),
  'text',
);
export const Checkbox = control(
  'Checkbox',
  'CheckboxView',
  () => ({ ...describe, value: false, disabled: false, indent: true }),
  'description',
);
export const VBox = control('VBox', 'VBoxView', box);
export const HBox = control('HBox', 'HBoxView', box);

/** A button; `onClick(fn)` runs `fn(button)` on each click in a frontend. */
export class Button extends control(
  'Button',
  'ButtonView',
  () => ({ description: '', button_style: '', disabled: false, icon: '' }),
  'button',
) {
  onClick(fn: (button: Button) => void): this {
    return this.onMsg((content) => {
      if ((content as { event?: string })?.event === 'click') fn(this);
    });
  }
  on_click = this.onClick;
}

/** Output shown inside a widget: `out.appendStdout(text)`, `out.appendDisplayData(value)`, `out.clearOutput()`. */
export class Output extends control('Output', 'OutputView', () => ({ msg_id: '', outputs: [] }), undefined, OUTPUT) {
  #add(output: State): void {
    this.set('outputs', [...(this.get('outputs') as State[]), output]);
  }
  appendStdout(text: string): void {
    this.#add({ output_type: 'stream', name: 'stdout', text: String(text) });
  }
  appendStderr(text: string): void {
    this.#add({ output_type: 'stream', name: 'stderr', text: String(text) });
  }
  appendDisplayData(value: unknown): void {
    const { data, metadata } = render(value);
    this.#add({ output_type: 'display_data', data, metadata });
  }
  clearOutput(): void {
    this.set('outputs', []);
  }
  // ipywidgets' spellings
  append_stdout = this.appendStdout;
  append_stderr = this.appendStderr;
  append_display_data = this.appendDisplayData;
  clear_output = this.clearOutput;
}

/** Keeps two attributes equal, in the kernel: `link([slider, 'value'], [progress, 'value'])`. */
export function link(source: [Widget, string], target: [Widget, string]): { unlink(): void } {
  let updating = false;
  const sync = (to: [Widget, string]) => (change: Change) => {
    if (updating) return;
    updating = true;
    try {
      to[0].set(to[1], change.new);
    } finally {
      updating = false;
    }
  };
  const forward = sync(target);
  const backward = sync(source);
  target[0].set(target[1], source[0].get(source[1]));
  source[0].observe(forward, source[1]);
  target[0].observe(backward, target[1]);
  return {
    unlink: () => {
      source[0].unobserve(forward);
      target[0].unobserve(backward);
    },
  };
}

export const widgets = {
  Widget,
  Layout,
  IntSlider,
  FloatSlider,
  IntProgress,
  FloatProgress,
  Label,
  HTML,
  Text,
  Checkbox,
  Button,
  VBox,
  HBox,
  Output,
  link,
};

export function installWidgets(h: WidgetsHost): void {
  host = h;
}

/** `comm_info_request`: the open comms (of `targetName`, if given). */
export function commInfo(targetName: unknown): Record<string, unknown> {
  const comms: Record<string, { target_name: string }> = {};
  if (targetName === undefined || targetName === null || targetName === 'jupyter.widget')
    for (const id of live.keys()) comms[id] = { target_name: 'jupyter.widget' };
  return { status: 'ok', comms };
}

/** Frontend-opened `jupyter.widget.control` comms: answered with every widget's state at once. */
const controlComms = new Set<string>();

/** A `comm_open`, `comm_msg` or `comm_close` from a frontend. */
export function handleComm(msgType: string, content: State, buffers: unknown[]): void {
  const commId = String(content.comm_id ?? '');
  const data = (typeof content.data === 'object' && content.data !== null ? content.data : {}) as State;
  if (msgType === 'comm_open') {
    if (content.target_name === 'jupyter.widget.control') controlComms.add(commId);
    // No other target takes frontend-opened comms: tell the frontend it is closed, as ipykernel does.
    else host?.post({ msgType: 'comm_close', content: { comm_id: commId, data: {} } });
    return;
  }
  if (msgType === 'comm_close') {
    controlComms.delete(commId);
    live.get(commId)?.close();
    return;
  }
  if (controlComms.has(commId)) {
    if (data.method !== 'request_states') return;
    const states: Record<string, unknown> = {};
    for (const [id, widget] of live) {
      const state = widget.getState();
      states[id] = {
        model_name: state._model_name,
        model_module: state._model_module,
        model_module_version: state._model_module_version,
        state,
      };
    }
    send(commId, { method: 'update_states', states, buffer_paths: [] });
    return;
  }
  live.get(commId)?.handle(data, buffers);
}
