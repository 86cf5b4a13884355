export { type CreateTerminalOptions, TERMINAL_NAME, TerminalManager, type TerminalManagerOptions } from './manager.js';
export { loadNodePty, NODE_PTY_MODULE } from './node-pty.js';
export type { PtyExit, PtyProcess, PtySpawner, PtySpawnOptions } from './pty.js';
export { Scrollback } from './scrollback.js';
export { Terminal, type TerminalModel, type TerminalOptions, type TerminalOutput } from './terminal.js';
