import type { TerminalManager } from '@nbserve/core';
import type { WebSocket } from 'ws';
import { TerminalFanout, type TerminalFanoutOptions } from './terminal-fanout.js';

/** The terminal WebSockets of one server: a fan-out per terminal with clients. */
export class TerminalHub {
  readonly #terminals: TerminalManager;
  readonly #options: TerminalFanoutOptions;
  readonly #fanouts = new Map<string, TerminalFanout>();

  constructor(terminals: TerminalManager, options: TerminalFanoutOptions) {
    this.#terminals = terminals;
    this.#options = options;
    terminals.onRemoved((name) => {
      this.#fanouts.get(name)?.dispose(1000, 'Terminal is gone', true);
      this.#fanouts.delete(name);
    });
  }

  /** Hands an accepted WebSocket to the terminal's fan-out. The terminal must exist. */
  connect(name: string, ws: WebSocket): void {
    const terminal = this.#terminals.get(name);
    let fanout = this.#fanouts.get(name);
    if (!fanout || fanout.terminal !== terminal) {
      fanout = new TerminalFanout(terminal, this.#options);
      this.#fanouts.set(name, fanout);
    }
    fanout.attach(ws);
  }

  close(): void {
    for (const fanout of this.#fanouts.values()) fanout.dispose(1001, 'Server shutting down');
    this.#fanouts.clear();
  }
}
