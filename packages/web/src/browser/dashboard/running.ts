import { formatTime } from '../../shared/format.js';
import { encodePath, url } from '../../shared/paths.js';
import { api, type KernelModel, type SessionModel, type TerminalModel } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { h, toast } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { formatUsage, type KernelUsage, kernelUsages } from '../lib/kernel-usage.js';

/** The Running tab: notebook sessions, bare kernels and terminals, each with a Shutdown button. */
export class RunningView {
  readonly element = h('section', { className: 'running-view' });

  async load(): Promise<void> {
    try {
      const withTerminals = pageConfig().terminals === true;
      const [sessions, kernels, terminals] = await Promise.all([
        api<SessionModel[]>('api/sessions'),
        api<KernelModel[]>('api/kernels'),
        withTerminals ? api<TerminalModel[]>('api/terminals') : Promise.resolve([]),
      ]);
      const usages = kernelUsages(); // filled in when it comes: the rows show at once without it
      const sessionKernels = new Set(sessions.map((s) => s.kernel?.id));
      const bare = kernels.filter((k) => !sessionKernels.has(k.id));
      const base = pageConfig().baseUrl;
      const sessionRows = sessions.map((s) =>
        h(
          'div',
          { className: 'row', 'data-session': s.id },
          h(
            'span',
            { className: 'col col-name' },
            icon(s.type === 'notebook' ? 'notebook' : 'file'),
            h('a', { href: url(base, s.type === 'notebook' ? 'notebooks' : 'edit', s.path) }, s.path),
          ),
          h('span', { className: 'col col-kernel' }, `${s.kernel?.name ?? ''} · ${s.kernel?.execution_state ?? ''}`),
          this.usageCell(usages, s.kernel?.id),
          h('span', { className: 'col col-date' }, s.kernel?.last_activity ? formatTime(s.kernel.last_activity) : ''),
          this.shutdownButton(`api/sessions/${s.id}`),
        ),
      );
      const kernelRows = bare.map((k) =>
        h(
          'div',
          { className: 'row', 'data-kernel': k.id },
          h('span', { className: 'col col-name' }, `Kernel ${k.id.slice(0, 8)}`),
          h('span', { className: 'col col-kernel' }, `${k.name} · ${k.execution_state ?? ''}`),
          this.usageCell(usages, k.id),
          h('span', { className: 'col col-date' }, k.last_activity ? formatTime(k.last_activity) : ''),
          this.shutdownButton(`api/kernels/${k.id}`),
        ),
      );
      const terminalRows = terminals.map((t) =>
        h(
          'div',
          { className: 'row', 'data-terminal': t.name },
          h(
            'span',
            { className: 'col col-name' },
            icon('terminal'),
            h('a', { href: url(base, 'terminals', t.name) }, `Terminal ${t.name}`),
          ),
          h('span', { className: 'col col-kernel' }, ''),
          h('span', { className: 'col col-usage' }, ''),
          h('span', { className: 'col col-date' }, formatTime(t.last_activity)),
          this.shutdownButton(`api/terminals/${encodePath(t.name)}`),
        ),
      );
      this.element.replaceChildren(
        h('h3', {}, 'Notebooks'),
        sessionRows.length
          ? h('div', { className: 'table' }, ...sessionRows)
          : h('p', { className: 'empty' }, 'No running notebooks.'),
        h('h3', {}, 'Kernels without a notebook'),
        kernelRows.length ? h('div', { className: 'table' }, ...kernelRows) : h('p', { className: 'empty' }, 'None.'),
        ...(withTerminals
          ? [
              h('h3', {}, 'Terminals'),
              terminalRows.length
                ? h('div', { className: 'table' }, ...terminalRows)
                : h('p', { className: 'empty' }, 'No running terminals.'),
            ]
          : []),
      );
    } catch (error) {
      this.element.replaceChildren(
        h('p', { className: 'error' }, error instanceof Error ? error.message : String(error)),
      );
    }
  }

  /** The kernel's memory and CPU, filled in once the server answered. */
  private usageCell(usages: Promise<Map<string, KernelUsage>>, kernelId: string | undefined): HTMLElement {
    const cell = h('span', { className: 'col col-usage' }, '');
    void usages.then((all) => {
      const usage = kernelId ? all.get(kernelId) : undefined;
      if (usage && usage.memory > 0) cell.textContent = formatUsage(usage);
    });
    return cell;
  }

  private shutdownButton(route: string): HTMLElement {
    return h(
      'button',
      {
        type: 'button',
        className: 'btn btn-danger btn-small',
        onclick: () =>
          void api(route, { method: 'DELETE' })
            .then(() => this.load())
            .catch((e: unknown) => toast(e instanceof Error ? e.message : String(e), 'error')),
      },
      'Shutdown',
    );
  }
}
