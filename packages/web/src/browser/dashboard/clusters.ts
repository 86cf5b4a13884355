import { api } from '../lib/api.js';
import { h, toast } from '../lib/dom.js';

interface ClusterModel {
  profile: string;
  profile_dir?: string;
  status: 'running' | 'stopped' | string;
  n?: number;
}

/** The Clusters tab (IPython parallel profiles), wired to `/api/clusters`. */
export class ClustersView {
  readonly element = h('section', { className: 'clusters-view' });

  async load(): Promise<void> {
    let clusters: ClusterModel[];
    try {
      clusters = await api<ClusterModel[]>('api/clusters');
    } catch (error) {
      // The clusters API may be absent (404) or ipyparallel missing (503): say so plainly.
      const message = error instanceof Error ? error.message : String(error);
      this.element.replaceChildren(
        h('p', { className: 'error clusters-error' }, `Clusters are not available: ${message}`),
      );
      return;
    }
    const rows = clusters.map((c) => {
      const n = h('input', {
        type: 'number',
        min: '1',
        value: String(c.n ?? 2),
        className: 'engines',
        'aria-label': `Engines for ${c.profile}`,
      });
      const running = c.status === 'running';
      const action = (what: 'start' | 'stop') =>
        api(`api/clusters/${encodeURIComponent(c.profile)}/${what}`, {
          method: 'POST',
          ...(what === 'start' ? { query: { n: n.value } } : {}),
        })
          .then(() => this.load())
          .catch((e: unknown) => toast(e instanceof Error ? e.message : String(e), 'error'));
      return h(
        'div',
        { className: 'row', 'data-profile': c.profile },
        h('span', { className: 'col col-name' }, c.profile),
        h('span', { className: 'col col-status' }, running ? `running (${c.n ?? '?'} engines)` : 'stopped'),
        running ? null : n,
        h(
          'button',
          {
            type: 'button',
            className: `btn btn-small${running ? ' btn-danger' : ''}`,
            onclick: () => void action(running ? 'stop' : 'start'),
          },
          running ? 'Stop' : 'Start',
        ),
      );
    });
    this.element.replaceChildren(
      rows.length
        ? h('div', { className: 'table' }, ...rows)
        : h('p', { className: 'empty' }, 'No cluster profiles found.'),
    );
  }
}
