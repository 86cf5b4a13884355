import { appendStreamText } from '../../shared/stream-text.js';
import { h } from '../lib/dom.js';
import type { KernelMessage } from './messages.js';
import { normaliseOutput, type Output } from './model.js';
import { ansiHtml, renderBundle, type WidgetViews } from './render-mime.js';

/**
 * The outputs of one code cell: the model (what gets saved) and its DOM, kept in step.
 * Handles stream merging with `\r`, `clear_output(wait=True)`, and display ids.
 */
export class OutputArea {
  readonly element = h('div', { className: 'output-area' });
  outputs: Output[] = [];
  /** Whether outputs may run scripts (produced in this session, or a trusted notebook). */
  trusted: boolean;
  private clearPending = false;
  private readonly nodes: HTMLElement[] = [];

  /** Outputs longer than this many lines are shown in a scroll box (click the left margin to toggle). */
  static readonly SCROLL_LINES = 100;

  constructor(
    outputs: Output[],
    trusted: boolean,
    /** Display-id registry shared by the notebook, so `update_display_data` reaches every cell. */
    private readonly displays: DisplayRegistry,
    /** Draws widget outputs (the page's widget host). */
    private readonly widgets: WidgetViews,
  ) {
    this.trusted = trusted;
    for (const o of outputs) this.append(o);
    this.element.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).closest('.output-prompt')) this.element.classList.toggle('scrolled');
    });
  }

  /** Long text outputs go into a scroll box, as in the classic Notebook; it also keeps big pages light. */
  private checkLength(text: string): void {
    if (this.element.classList.contains('scrolled') || this.autoScrolled) return;
    let lines = 0;
    for (let i = text.indexOf('\n'); i >= 0 && lines <= OutputArea.SCROLL_LINES; i = text.indexOf('\n', i + 1)) lines++;
    if (lines > OutputArea.SCROLL_LINES) {
      this.autoScrolled = true;
      this.element.classList.add('scrolled');
    }
  }

  private autoScrolled = false;

  clear(wait = false): void {
    if (wait) {
      this.clearPending = true;
      return;
    }
    this.clearPending = false;
    this.outputs = [];
    this.nodes.splice(0);
    this.element.replaceChildren();
    this.element.classList.remove('scrolled');
    this.autoScrolled = false;
    this.displays.forget(this);
  }

  /** Handles one iopub message of a request this cell made. */
  handle(msg: KernelMessage): void {
    const type = msg.header.msg_type;
    const c = msg.content;
    if (type === 'clear_output') {
      this.clear(Boolean(c.wait));
      return;
    }
    if (type === 'update_display_data') {
      this.displays.update(String((c.transient as { display_id?: string })?.display_id ?? ''), c);
      return;
    }
    if (type === 'stream' || type === 'display_data' || type === 'execute_result' || type === 'error') {
      if (this.clearPending) this.clear(false);
      const output = normaliseOutput({ output_type: type, ...c } as Output);
      this.append(output);
    }
  }

  append(output: Output): void {
    const last = this.outputs[this.outputs.length - 1];
    if (output.output_type === 'stream' && last?.output_type === 'stream' && last.name === output.name) {
      last.text = appendStreamText(last.text ?? '', output.text ?? '');
      const node = this.nodes[this.nodes.length - 1] as HTMLElement;
      const fresh = this.render(last);
      node.replaceWith(fresh);
      this.nodes[this.nodes.length - 1] = fresh;
      return;
    }
    if (output.output_type === 'stream') output.text = appendStreamText('', output.text ?? '');
    const displayId = output.transient?.display_id;
    const stored: Output = { ...output };
    delete stored.transient;
    this.outputs.push(stored);
    const node = this.render(stored);
    this.nodes.push(node);
    this.element.append(node);
    if (displayId) this.displays.register(displayId, this, stored);
  }

  /** Re-renders one output in place (update_display_data). */
  replace(output: Output, content: Record<string, unknown>): void {
    const index = this.outputs.indexOf(output);
    if (index < 0) return;
    output.data =
      normaliseOutput({ output_type: 'display_data', data: content.data as Record<string, unknown> }).data ?? {};
    output.metadata = (content.metadata as Record<string, unknown>) ?? {};
    const node = this.render(output);
    this.nodes[index]?.replaceWith(node);
    this.nodes[index] = node;
  }

  dropInputPrompts(): void {
    for (const box of this.element.querySelectorAll('.stdin')) box.remove();
  }

  /**
   * An `input()` prompt; resolves when the user presses Enter. `echo`: show the answer here (the
   * server echoes it when it runs the cell); `focus`: move the focus into the box.
   */
  askInput(prompt: string, password: boolean, { echo = true, focus = true } = {}): Promise<string> {
    return new Promise((resolve) => {
      const input = h('input', {
        type: password ? 'password' : 'text',
        className: 'stdin-input',
        'aria-label': prompt || 'Input',
        autocomplete: 'off',
      });
      const box = h('div', { className: 'output stdin' }, h('span', { className: 'stdin-prompt' }, prompt), input);
      this.element.append(box);
      input.addEventListener('keydown', (e) => {
        // Keep notebook shortcuts out of the prompt; Esc still leaves it for command mode.
        if (e.key !== 'Escape') e.stopPropagation();
        if (e.key !== 'Enter') return;
        const value = input.value;
        box.remove();
        // Echo like a terminal; never echo a password.
        if (echo)
          this.append({ output_type: 'stream', name: 'stdout', text: `${prompt}${password ? '········' : value}\n` });
        resolve(value);
      });
      if (focus) input.focus();
    });
  }

  private render(output: Output): HTMLElement {
    const prompt = h(
      'div',
      { className: 'output-prompt' },
      output.output_type === 'execute_result' ? `Out[${output.execution_count ?? ' '}]:` : '',
    );
    let body: HTMLElement;
    if (output.output_type === 'stream') {
      body = h('pre', { className: `stream-text output-${output.name ?? 'stdout'}` });
      this.checkLength(output.text ?? '');
      body.innerHTML = ansiHtml((output.text ?? '').replace(/\r$/, ''));
    } else if (output.output_type === 'error') {
      body = h('pre', { className: 'error-text' });
      const tb = output.traceback?.length ? output.traceback.join('\n') : `${output.ename}: ${output.evalue}`;
      body.innerHTML = ansiHtml(tb);
    } else {
      body = renderBundle(output.data ?? {}, output.metadata ?? {}, this.trusted, this.widgets);
    }
    return h('div', { className: `output output-${output.output_type}` }, prompt, body);
  }
}

/** Where each display_id is shown, across all cells of the notebook. */
export class DisplayRegistry {
  private readonly byId = new Map<string, { area: OutputArea; output: Output }[]>();

  register(id: string, area: OutputArea, output: Output): void {
    const list = this.byId.get(id) ?? [];
    list.push({ area, output });
    this.byId.set(id, list);
  }

  update(id: string, content: Record<string, unknown>): void {
    for (const { area, output } of this.byId.get(id) ?? []) area.replace(output, content);
  }

  forget(area: OutputArea): void {
    for (const [id, list] of this.byId) {
      const kept = list.filter((e) => e.area !== area);
      if (kept.length) this.byId.set(id, kept);
      else this.byId.delete(id);
    }
  }
}
