// needs: kernel
/**
 * JupyterLab's own terminal client (`@jupyterlab/services`' TerminalManager) against nbserve:
 * start, type, read, resize, reconnect to the scrollback, shut down, and nothing of the shell
 * left running afterwards.
 */
import { createRequire } from 'node:module';
import { type Terminal, TerminalManager } from '@jupyterlab/services';
import { isGroupAlive, sessionMembers } from '@nbserve/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor, waitUntil } from '../../../testing/wait.js';

// JupyterLab's client asks its page config whether the server has terminals (jupyter_server
// writes `terminalsAvailable` into the page): say so, in the PageConfig instance services uses.
const fromServices = createRequire(createRequire(import.meta.url).resolve('@jupyterlab/services'));
const { PageConfig } = fromServices('@jupyterlab/coreutils') as {
  PageConfig: { setOption(name: string, value: string): string };
};
PageConfig.setOption('terminalsAvailable', 'true');

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.close();
});

/** Everything a connection prints, with a way to wait for a pattern in what came after `from`. */
function recorder(connection: Terminal.ITerminalConnection) {
  const state = { text: '' };
  connection.messageReceived.connect((_sender, message) => {
    if (message.type === 'stdout') state.text += String(message.content?.[0] ?? '');
  });
  const waitFor = async (pattern: RegExp, from = 0, timeoutMs = 30_000) => {
    if (!(await waitUntil(() => pattern.test(state.text.slice(from)), { timeoutMs, intervalMs: 50 })))
      throw new Error(`no ${pattern} in ${JSON.stringify(state.text.slice(from).slice(-300))}`);
    return state.text.slice(from);
  };
  return { state, waitFor };
}

async function connected(connection: Terminal.ITerminalConnection): Promise<void> {
  await waitFor(() => connection.connectionStatus === 'connected', { intervalMs: 20 }).catch(() => {
    throw new Error(`still ${connection.connectionStatus}`);
  });
}

it('start, echo, resize, reconnect to the scrollback, shut down: the process group is gone', async () => {
  const manager = new TerminalManager({ serverSettings: s.jupyterSettings() });
  await manager.ready;
  expect(manager.isAvailable()).toBe(true);
  const terminal = await manager.startNew();
  expect(terminal.name).toBe('1');
  const out = recorder(terminal);
  await connected(terminal);

  terminal.send({ type: 'stdin', content: ['echo $((6*7))\r'] });
  await out.waitFor(/\b42\r\n/);

  terminal.send({ type: 'set_size', content: [30, 100, 600, 1000] });
  let from = out.state.text.length;
  terminal.send({ type: 'stdin', content: ['stty size\r'] });
  await out.waitFor(/30 100\r\n/, from);

  // a job in a process group of its own, and the shell's pid, to look for afterwards
  from = out.state.text.length;
  terminal.send({ type: 'stdin', content: ['set -m; sleep 600 & echo "pid=$$ job=$!"\r'] });
  const ids = /pid=(\d+) job=(\d+)/.exec(await out.waitFor(/pid=\d+ job=\d+/, from));
  const shell = Number(ids?.[1]);
  const job = Number(ids?.[2]);
  expect(sessionMembers(shell)).toEqual(expect.arrayContaining([shell, job]));

  // reconnect: the server replays the recent screen after setup
  from = out.state.text.length;
  await terminal.reconnect();
  expect(terminal.connectionStatus).toBe('connected');
  await out.waitFor(/\b42\r\n[\s\S]*30 100/, from);

  // a second client of the same terminal sees the scrollback and then the live output
  const second = manager.connectTo({ model: { name: terminal.name } });
  const secondOut = recorder(second);
  await connected(second);
  await secondOut.waitFor(/\b42\r\n/);
  from = secondOut.state.text.length;
  terminal.send({ type: 'stdin', content: ['echo shared-$((2*3))\r'] });
  await secondOut.waitFor(/shared-6\r\n/, from);

  await manager.refreshRunning();
  const running = [...manager.running()];
  expect(running.map((m) => m.name)).toEqual([terminal.name]);

  await terminal.shutdown();
  expect(await (await s.fetch('api/terminals')).json()).toEqual([]);
  expect(isGroupAlive(shell)).toBe(false);
  expect(sessionMembers(shell)).toEqual([]);
  second.dispose();
  manager.dispose();
});
