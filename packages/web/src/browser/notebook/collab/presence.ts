import type { Awareness } from 'y-protocols/awareness';
import { h } from '../../lib/dom.js';
import type { Notebook } from '../document.js';

/** Colours of remote users' carets and labels (readable on white, told apart from each other). */
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#e377c2', '#8c564b'];
const ANIMALS = ['Aardvark', 'Heron', 'Lynx', 'Otter', 'Puffin', 'Quokka', 'Tapir', 'Wombat', 'Gecko', 'Ibis'];

export interface CollabUser {
  name: string;
  color: string;
  colorLight: string;
}

/** Who this page is to the others: a name and a colour, as JupyterLab's anonymous users. */
export function localUser(clientId: number): CollabUser {
  const color = COLOURS[clientId % COLOURS.length] as string;
  const name = `Anonymous ${ANIMALS[Math.floor(clientId / COLOURS.length) % ANIMALS.length]}`;
  return { name, color, colorLight: `${color}33` };
}

interface RemoteState {
  user?: Partial<CollabUser>;
  /** The id of the cell the user has selected. */
  cell?: string;
}

/**
 * Shows who else is in the notebook: a coloured label on the cell each remote user has
 * selected (carets inside an open editor are y-codemirror.next's), and a list of names in the
 * header. This page announces its own user and selected cell through the awareness protocol.
 */
export class Presence {
  private announced: string | undefined;
  readonly element = h('span', { className: 'collab-users', title: 'Also in this notebook' });

  constructor(
    private readonly nb: Notebook,
    private readonly awareness: Awareness,
  ) {
    installStyles();
    awareness.setLocalStateField('user', localUser(awareness.clientID));
    awareness.on('change', () => this.draw());
    const announce = () => this.announce();
    for (const event of ['keyup', 'mouseup', 'focusin']) document.addEventListener(event, announce);
    this.announce();
  }

  /** Tells the others which cell this page has selected, when it changed. */
  announce(): void {
    const id = this.nb.selectedCell?.data.id;
    if (id === this.announced) return;
    this.announced = id;
    this.awareness.setLocalStateField('cell', id ?? null);
  }

  draw(): void {
    for (const badge of this.nb.element.querySelectorAll('.collab-presence')) badge.remove();
    const names: HTMLElement[] = [];
    for (const [clientId, raw] of this.awareness.getStates()) {
      if (clientId === this.awareness.clientID) continue;
      const state = raw as RemoteState;
      const name = String(state.user?.name ?? 'Anonymous');
      const color = String(state.user?.color ?? '#777');
      names.push(h('span', { className: 'collab-user', style: `background:${color}`, title: name }, initials(name)));
      if (!state.cell) continue;
      const cell = this.nb.cells.find((c) => c.data.id === state.cell);
      if (!cell) continue;
      const badge = h('span', { className: 'collab-presence', style: `background:${color}` }, name);
      badge.dataset.client = String(clientId);
      cell.element.append(badge);
      cell.element.style.setProperty('--collab-color', color);
    }
    this.element.replaceChildren(...names);
  }
}

function initials(name: string): string {
  return name
    .split(/\s+/)
    .map((w) => w[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase();
}

let styled = false;

/** The few rules presence needs, kept with the code that draws it. */
function installStyles(): void {
  if (styled) return;
  styled = true;
  const style = document.createElement('style');
  style.textContent = `
.cell { position: relative; }
.collab-presence { position: absolute; top: 0; right: 0; z-index: 2; color: #fff; font: 11px/16px sans-serif;
  padding: 0 6px; border-radius: 0 0 0 4px; pointer-events: none; white-space: nowrap; }
.collab-users { display: inline-flex; gap: 3px; margin-left: 8px; vertical-align: middle; }
.collab-user { display: inline-block; min-width: 20px; height: 20px; border-radius: 10px; color: #fff;
  font: bold 10px/20px sans-serif; text-align: center; }
.cm-ySelectionInfo { font-size: 11px !important; }`;
  document.head.append(style);
}
