/**
 * Terminals of the real `nbserve` command: the shell runs the configured command, and SIGTERM to
 * the server leaves nothing of any terminal's session behind (its process group, and jobs that
 * job control moved into groups of their own).
 */
import { isGroupAlive, sessionMembers } from '@nbserve/core';
import { expect, it } from 'vitest';
import { isolated, runCli, tempDirs, useCliRuns } from '../../../testing/cli.js';
import { TerminalSocket } from '../../../testing/terminal-client.js';
import { TOKEN } from '../../../testing/token.js';

useCliRuns();

it('SIGTERM to the server ends every terminal with its process group and jobs', async () => {
  const dirs = await tempDirs();
  const cli = runCli([...isolated(dirs), `--token=${TOKEN}`, '--terminal-shell=/bin/sh -i', dirs.root]);
  const base = new URL(await cli.url);
  const origin = `${base.protocol}//${base.host}`;
  const headers = { authorization: `token ${TOKEN}` };
  const shells: number[] = [];
  for (let i = 0; i < 2; i++) {
    const created = await fetch(`${origin}/api/terminals`, { method: 'POST', headers });
    expect(created.status).toBe(200);
    const { name } = (await created.json()) as { name: string };
    const ws = await TerminalSocket.open(`ws://${base.host}/terminals/websocket/${name}`, headers);
    ws.stdin('set -m; sleep 600 & echo "pid=$$ job=$! args=$-"\r');
    const match = /pid=(\d+) job=(\d+) args=(\w*)/.exec(await ws.waitForOutput(/pid=\d+ job=\d+ args=\w*/));
    expect(match?.[3]).toContain('i'); // the --terminal-shell command ran
    const shell = Number(match?.[1]);
    expect(sessionMembers(shell)).toEqual(expect.arrayContaining([shell, Number(match?.[2])]));
    shells.push(shell);
    ws.close();
  }
  cli.child.kill('SIGTERM');
  expect(await cli.exit).toEqual({ code: 0, signal: null });
  for (const shell of shells) {
    expect(isGroupAlive(shell), `group ${shell}`).toBe(false);
    expect(sessionMembers(shell), `session ${shell}`).toEqual([]);
  }
});

it('--no-terminals: the API and the sockets answer 404', async () => {
  const dirs = await tempDirs();
  const cli = runCli([...isolated(dirs), `--token=${TOKEN}`, '--no-terminals', dirs.root]);
  const base = new URL(await cli.url);
  const headers = { authorization: `token ${TOKEN}` };
  expect((await fetch(`${base.protocol}//${base.host}/api/terminals`, { method: 'POST', headers })).status).toBe(404);
  await expect(TerminalSocket.open(`ws://${base.host}/terminals/websocket/1`, headers)).rejects.toThrow(
    'upgrade refused: 404',
  );
  cli.child.kill('SIGTERM');
  expect((await cli.exit).code).toBe(0);
});
