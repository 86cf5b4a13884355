// needs: kernel
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Cli, type Dirs, isolated, runCli, tempDirs, useCliRuns } from '../../../testing/cli.js';
import { collabSession } from '../../../testing/collaboration.js';
import { startGatewayStub } from '../../../testing/gateway-stub.js';
import { kernelPidByConnectionFile } from '../../../testing/kernel-cases.js';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';
import { type Frame, open, type Recorder } from '../../../testing/ws-recorder.js';

/**
 * `--persist-kernels`: kernels outlive the server (SIGTERM or SIGKILL) and the next server on the
 * same dirs adopts them, with their ids, sessions and state; bad records are ignored.
 */

const auth = { authorization: `token ${TOKEN}` };
const sockets: Recorder[] = [];
const pidsToKill = new Set<number>();
const dirsToRemove: Dirs[] = [];

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.ws.terminate();
});
useCliRuns();
afterAll(async () => {
  for (const pid of pidsToKill) signal(pid, 'SIGKILL');
  for (const dirs of dirsToRemove) await fs.rm(dirs.dir, { recursive: true, force: true });
});

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pid, name);
  } catch {
    try {
      process.kill(pid, name);
    } catch {
      // gone
    }
  }
}

/** Alive per /proc (a zombie or a missing entry counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function newDirs(): Promise<Dirs> {
  const dirs = await tempDirs();
  dirsToRemove.push(dirs);
  return dirs;
}

async function start(dirs: Dirs, extra: string[] = ['--persist-kernels']): Promise<{ cli: Cli; origin: string }> {
  const cli = runCli([dirs.root, ...isolated(dirs), `--token=${TOKEN}`, ...extra]);
  return { cli, origin: new URL(await cli.url).origin };
}

async function api(origin: string, route: string, init: { method?: string; json?: unknown } = {}) {
  const response = await fetch(`${origin}/${route}`, {
    method: init.method ?? 'GET',
    headers: { ...auth, 'content-type': 'application/json' },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function newSession(origin: string, notebook: string, kernel: string): Promise<{ id: string; kernelId: string }> {
  const { status, body } = await api(origin, 'api/sessions', {
    method: 'POST',
    json: { path: notebook, name: notebook, type: 'notebook', kernel: { name: kernel } },
  });
  expect(status).toBe(201);
  return { id: body.id, kernelId: body.kernel.id };
}

async function channels(origin: string, kernelId: string, sessionId = randomUUID()): Promise<Recorder> {
  const url = `${origin.replace('http', 'ws')}/api/kernels/${kernelId}/channels?session_id=${sessionId}`;
  const socket = await open(url, auth);
  sockets.push(socket);
  return socket;
}

function sendExecute(socket: Recorder, code: string): string {
  const msgId = randomUUID();
  socket.ws.send(
    JSON.stringify({
      header: { msg_id: msgId, msg_type: 'execute_request', session: 'test', username: '', date: '', version: '5.3' },
      parent_header: {},
      metadata: {},
      content: { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false },
      channel: 'shell',
    }),
  );
  return msgId;
}

const childOf = (msgId: string, type: string) => (f: Frame) =>
  f.header.msg_type === type && f.parent_header.msg_id === msgId;

/** Runs `code`; the text/plain of its result (or of its stream output when there is none). */
async function run(socket: Recorder, code: string): Promise<string> {
  const msgId = sendExecute(socket, code);
  const reply = await socket.waitFor(childOf(msgId, 'execute_reply'), 60_000);
  expect(reply.content.status).toBe('ok');
  // iopub and shell are separate sockets: the result may come after the reply, before idle
  await socket.waitFor((f) => childOf(msgId, 'status')(f) && f.content.execution_state === 'idle', 30_000);
  const result = socket.frames.find(childOf(msgId, 'execute_result'));
  return String((result?.content.data as Record<string, unknown> | undefined)?.['text/plain'] ?? '');
}

/**
 * Python that prints 'before', waits until the test creates the file `gate` (so a cell spans a
 * restart for exactly as long as the test needs, no fixed sleep), then runs `rest`.
 */
function gated(gate: string, rest: string): string {
  return `import os, time\nprint('before', flush=True)\nwhile not os.path.exists(${JSON.stringify(gate)}):\n    time.sleep(0.02)\n${rest}`;
}

async function executionState(origin: string, kernelId: string): Promise<string> {
  return (await api(origin, `api/kernels/${kernelId}`)).body.execution_state;
}

/** The persisted record of a kernel, as the runtime dir holds it (an empty one until it is written). */
async function persisted(dirs: Dirs, kernelId: string): Promise<{ execution?: unknown; kernelId?: string }> {
  const file = path.join(dirs.runtime, `nbserve-kernel-${kernelId}.persist.json`);
  return JSON.parse(await fs.readFile(file, 'utf8').catch(() => '{}'));
}

async function stop(cli: Cli, how: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  cli.child.kill(how);
  const exit = await cli.exit;
  if (how === 'SIGTERM') expect(exit).toEqual({ code: 0, signal: null });
}

describe('--persist-kernels', () => {
  it('leaves kernels running on SIGTERM; the next server adopts them with ids, sessions and state', async () => {
    const dirs = await newDirs();
    const first = await start(dirs);
    const python = await newSession(first.origin, 'py.ipynb', 'python3');
    const js = await newSession(first.origin, 'js.ipynb', 'javascript');
    expect(await run(await channels(first.origin, python.kernelId), 'x = 41')).toBe('');
    expect(await run(await channels(first.origin, js.kernelId), 'globalThis.z = 6')).toBe('6');
    const pids = [python.kernelId, js.kernelId].map(kernelPidByConnectionFile);
    for (const pid of pids) pidsToKill.add(pid);
    const before = (await api(first.origin, 'api/sessions')).body;
    await stop(first.cli, 'SIGTERM');
    expect(pids.filter(alive)).toEqual(pids);

    const second = await start(dirs);
    const kernels = (await api(second.origin, 'api/kernels')).body as { id: string }[];
    expect(kernels.map((k) => k.id).sort()).toEqual([python.kernelId, js.kernelId].sort());
    const sessions = (await api(second.origin, 'api/sessions')).body as { id: string; kernel: { id: string } }[];
    expect(sessions.map((s) => [s.id, s.kernel.id]).sort()).toEqual(
      (before as { id: string; kernel: { id: string } }[]).map((s) => [s.id, s.kernel.id]).sort(),
    );
    expect(await run(await channels(second.origin, python.kernelId), 'x + 1')).toBe('42');
    expect(await run(await channels(second.origin, js.kernelId), 'z + 1')).toBe('7');
    for (const id of [python.kernelId, js.kernelId]) {
      expect((await api(second.origin, `api/kernels/${id}`, { method: 'DELETE' })).status).toBe(204);
    }
    await waitFor(() => !pids.some(alive), { timeoutMs: 15_000 });
    await stop(second.cli, 'SIGTERM');
  }, 120_000);

  it('survives SIGKILL: a cell running across the restart reaches a client of the new server; a kernel killed meanwhile is dropped with its session', async () => {
    const dirs = await newDirs();
    const first = await start(dirs);
    const kept = await newSession(first.origin, 'kept.ipynb', 'python3');
    const lost = await newSession(first.origin, 'lost.ipynb', 'python3');
    const socket = await channels(first.origin, kept.kernelId);
    expect(await run(socket, 'x = 41')).toBe('');
    const lostPid = kernelPidByConnectionFile(lost.kernelId);
    const keptPid = kernelPidByConnectionFile(kept.kernelId);
    pidsToKill.add(lostPid).add(keptPid);
    const gate = path.join(dirs.dir, 'gate');
    const msgId = sendExecute(socket, gated(gate, "print('after')\ny = x + 1\ny"));
    await socket.waitFor((f) => childOf(msgId, 'stream')(f) && String(f.content.text).includes('before'), 30_000);
    await waitFor(async () => (await persisted(dirs, kept.kernelId)).execution !== undefined, { what: 'the record' });
    await stop(first.cli, 'SIGKILL');
    signal(lostPid, 'SIGKILL');
    await waitFor(() => !alive(lostPid), { timeoutMs: 10_000 });

    const second = await start(dirs);
    const kernels = (await api(second.origin, 'api/kernels')).body as { id: string; execution_state: string }[];
    expect(kernels.map((k) => k.id)).toEqual([kept.kernelId]);
    const sessions = (await api(second.origin, 'api/sessions')).body as { id: string }[];
    expect(sessions.map((s) => s.id)).toEqual([kept.id]);
    // still running: busy until it ends, then idle
    expect(kernels[0]?.execution_state).toBe('busy');
    // a client of the new server (a new channels session) gets the rest of the cell and its reply
    const later = await channels(second.origin, kept.kernelId);
    expect(await executionState(second.origin, kept.kernelId)).toBe('busy');
    await fs.writeFile(gate, '');
    const reply = await later.waitFor(childOf(msgId, 'execute_reply'), 60_000);
    expect(reply.content.status).toBe('ok');
    await waitFor(async () => (await executionState(second.origin, kept.kernelId)) === 'idle', { what: 'idle' });
    const outputs = later.frames.filter((f) => f.parent_header.msg_id === msgId);
    expect(outputs.some((f) => f.header.msg_type === 'stream' && String(f.content.text).includes('after'))).toBe(true);
    expect(await run(later, 'y')).toBe('42');
    expect((await api(second.origin, `api/kernels/${kept.kernelId}`, { method: 'DELETE' })).status).toBe(204);
    await stop(second.cli, 'SIGTERM');
  }, 120_000);

  it('a live document keeps recording the outputs of a cell the server was running across a SIGKILL', async () => {
    const dirs = await newDirs();
    const gate = path.join(dirs.dir, 'gate');
    const code = gated(gate, "print('after')\n6 * 7");
    await fs.writeFile(
      path.join(dirs.root, 'live.ipynb'),
      JSON.stringify(v4Notebook([v4CodeCell(code, { id: 'slow' })])),
    );
    const first = await start(dirs);
    const { body: kernel } = await api(first.origin, 'api/kernels', { method: 'POST', json: { name: 'python3' } });
    pidsToKill.add(kernelPidByConnectionFile(kernel.id));
    const { fileId } = await collabSession(`${first.origin}/`, 'live.ipynb');
    const documentId = `json:notebook:${fileId}`;
    const queued = await api(first.origin, `api/kernels/${kernel.id}/execute`, {
      method: 'POST',
      json: { metadata: { document_id: documentId, cell_id: 'slow' } },
    });
    expect(queued.status).toBe(202);
    const fileText = () => fs.readFile(path.join(dirs.root, 'live.ipynb'), 'utf8');
    const outputText = async () => {
      const cell = JSON.parse(await fileText()).cells[0];
      return cell.outputs.map((o: { text?: string | string[] }) => [o.text ?? ''].flat().join('')).join('');
    };
    // 'before' is in the file (saved by the first server) while the cell sleeps
    await waitFor(async () => (await outputText()).includes('before'), { timeoutMs: 60_000, what: 'the first output' });
    await stop(first.cli, 'SIGKILL');

    const second = await start(dirs);
    // the run is listed once the document follows it again: then the cell may go on
    const running = () => api(second.origin, `api/kernels/${kernel.id}/requests/${queued.body.request_id}`);
    await waitFor(async () => (await running()).status !== 404, { timeoutMs: 30_000, what: 'the resumed run' });
    expect((await running()).body.status).toBe('running');
    await fs.writeFile(gate, '');
    await waitFor(async () => (await outputText()).includes('after'), { timeoutMs: 60_000, what: 'the later output' });
    await waitFor(async () => JSON.parse(await fileText()).cells[0].execution_count !== null, { what: 'the count' });
    const cell = JSON.parse(await fileText()).cells[0];
    const texts = cell.outputs.map((o: { text?: string | string[] }) => [o.text ?? ''].flat().join(''));
    expect(texts.join('')).toContain('before');
    expect(texts.join('')).toContain('after');
    const result = cell.outputs.at(-1);
    expect(result.output_type).toBe('execute_result');
    expect([result.data['text/plain']].flat().join('')).toBe('42');
    const request = await api(second.origin, `api/kernels/${kernel.id}/requests/${queued.body.request_id}`);
    expect(request.body).toMatchObject({ status: 'ok' });
    expect((await api(second.origin, `api/kernels/${kernel.id}`, { method: 'DELETE' })).status).toBe(204);
    await stop(second.cli, 'SIGTERM');
  }, 150_000);

  it('a cell that ended while no server was connected leaves its kernel idle, its live document settled', async () => {
    const dirs = await newDirs();
    const gate = path.join(dirs.dir, 'gate');
    const ended = (name: string) => `y = 6 * 7\nopen(${JSON.stringify(path.join(dirs.dir, name))}, 'w').close()\ny`;
    await fs.writeFile(
      path.join(dirs.root, 'live.ipynb'),
      JSON.stringify(v4Notebook([v4CodeCell(gated(gate, ended('doc-done')), { id: 'c' })])),
    );
    const first = await start(dirs);
    const front = await newSession(first.origin, 'front.ipynb', 'python3');
    const { body: docKernel } = await api(first.origin, 'api/kernels', { method: 'POST', json: { name: 'python3' } });
    for (const id of [front.kernelId, docKernel.id]) pidsToKill.add(kernelPidByConnectionFile(id));
    const channelsSession = randomUUID();
    const socket = await channels(first.origin, front.kernelId, channelsSession);
    const msgId = sendExecute(socket, gated(gate, ended('front-done')));
    const { fileId } = await collabSession(`${first.origin}/`, 'live.ipynb');
    const queued = await api(first.origin, `api/kernels/${docKernel.id}/execute`, {
      method: 'POST',
      json: { metadata: { document_id: `json:notebook:${fileId}`, cell_id: 'c' } },
    });
    await socket.waitFor((f) => childOf(msgId, 'stream')(f) && String(f.content.text).includes('before'), 30_000);
    for (const id of [front.kernelId, docKernel.id]) {
      await waitFor(async () => (await persisted(dirs, id)).execution !== undefined, { what: 'the running cells' });
    }
    const saved = async () => JSON.parse(await fs.readFile(path.join(dirs.root, 'live.ipynb'), 'utf8')).cells[0];
    await waitFor(async () => JSON.stringify((await saved()).outputs).includes('before'), { what: 'the doc saved' });
    await stop(first.cli, 'SIGKILL');
    // both cells end while no server is connected
    await fs.writeFile(gate, '');
    await waitFor(async () => (await fs.readdir(dirs.dir)).filter((name) => name.endsWith('-done')).length === 2, {
      timeoutMs: 30_000,
      what: 'the cells to end',
    });

    const second = await start(dirs);
    const later = await channels(second.origin, front.kernelId, channelsSession);
    for (const id of [front.kernelId, docKernel.id]) {
      await waitFor(async () => (await executionState(second.origin, id)) === 'idle', {
        timeoutMs: 10_000,
        what: 'idle',
      });
      const record = await persisted(dirs, id);
      expect(record.kernelId).toBe(id);
      await waitFor(async () => (await persisted(dirs, id)).execution === undefined, { what: 'the record settled' });
    }
    // its reply is lost: the run ends, `ok` as far as the outputs it published before the restart tell
    const request = () => api(second.origin, `api/kernels/${docKernel.id}/requests/${queued.body.request_id}`);
    await waitFor(async () => ['ok', 'error', 'aborted'].includes((await request()).body.status), {
      timeoutMs: 10_000,
      what: 'the run ended',
    });
    expect((await request()).body.status).toBe('ok');
    // no stale `In [*]`: the cell reads idle to a collaborator (imported here: the preamble is shared work)
    const { openCollabClient } = await import('../../../testing/collaboration.js');
    const doc = await openCollabClient(`${second.origin}/`, 'live.ipynb');
    const cell = doc.model.cells[0];
    expect(cell && 'executionState' in cell ? cell.executionState : undefined).toBe('idle');
    // its execution count came with execute_input, before the restart; 'before' was recorded, the result is lost
    expect(cell?.toJSON()).toMatchObject({ execution_count: expect.any(Number) });
    expect(JSON.stringify(cell?.toJSON().outputs)).toContain('before');
    doc.close();
    // what the kernel sent while no server was connected is gone: the reply too (docs/kernels.md)
    expect(later.frames.filter((f) => f.parent_header.msg_id === msgId)).toEqual([]);
    // the kernels run on, with what the cell did while no server was connected
    expect(await run(later, 'y')).toBe('42');
    for (const id of [front.kernelId, docKernel.id]) {
      expect((await api(second.origin, `api/kernels/${id}`, { method: 'DELETE' })).status).toBe(204);
    }
    await stop(second.cli, 'SIGTERM');
  }, 150_000);

  it("keeps a kernel's last activity across the restart, so culling counts the idle time before it", async () => {
    const dirs = await newDirs();
    const first = await start(dirs);
    const { kernelId } = await newSession(first.origin, 'idle.ipynb', 'python3');
    const socket = await channels(first.origin, kernelId);
    await run(socket, '1');
    socket.ws.close();
    pidsToKill.add(kernelPidByConnectionFile(kernelId));
    await waitFor(async () => (await api(first.origin, `api/kernels/${kernelId}`)).body.connections === 0);
    const idleSince = (await api(first.origin, `api/kernels/${kernelId}`)).body.last_activity;
    await stop(first.cli, 'SIGTERM');

    const second = await start(dirs, ['--persist-kernels', '--cull-idle-timeout=3', '--cull-interval=1']);
    expect((await api(second.origin, `api/kernels/${kernelId}`)).body.last_activity).toBe(idleSince);
    await waitFor(async () => (await api(second.origin, `api/kernels/${kernelId}`)).status === 404, {
      timeoutMs: 20_000,
    });
    await stop(second.cli, 'SIGTERM');
  }, 120_000);

  it('ignores corrupt records and records naming a process that is not the kernel, never signalling it', async () => {
    const dirs = await newDirs();
    await fs.mkdir(dirs.runtime, { recursive: true });
    const bystander = spawn('sleep', ['120'], { detached: true, stdio: 'ignore' });
    const pid = bystander.pid as number;
    pidsToKill.add(pid);
    const startTime = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19] ?? null;
    const deadServer = 2 ** 22 + 7; // no such pid
    // A corrupt persisted record, with a pid record (of a gone server) naming the bystander.
    await fs.writeFile(path.join(dirs.runtime, 'nbserve-kernel-corrupt.persist.json'), '{"kernelId": "corr');
    await fs.writeFile(
      path.join(dirs.runtime, 'nbserve-kernel-corrupt.pid.json'),
      JSON.stringify({
        kernelId: 'corrupt',
        pid,
        startTime,
        serverPid: deadServer,
        serverStartTime: null,
        connectionFile: path.join(dirs.runtime, 'kernel-corrupt.json'),
      }),
    );
    // A well-formed record whose pid is the bystander, which is not that kernel.
    const record = {
      kernelId: 'impostor',
      specName: 'python3',
      cwd: dirs.root,
      env: {},
      session: 's',
      routingId: 'r',
      local: {
        pid,
        startTime,
        connectionFile: path.join(dirs.runtime, 'kernel-impostor.json'),
        connection: {
          ip: '127.0.0.1',
          transport: 'tcp',
          shell_port: 1,
          iopub_port: 2,
          stdin_port: 3,
          control_port: 4,
          hb_port: 5,
          key: 'k',
          signature_scheme: 'hmac-sha256',
        },
      },
      clients: [],
      lastActivity: new Date().toISOString(),
      sessions: [{ id: 'sess', path: 'a.ipynb', name: 'a.ipynb', type: 'notebook', kernelId: 'impostor' }],
      serverPid: deadServer,
      serverStartTime: null,
    };
    await fs.writeFile(path.join(dirs.runtime, 'nbserve-kernel-impostor.persist.json'), JSON.stringify(record));

    const server = await start(dirs);
    expect((await api(server.origin, 'api/kernels')).body).toEqual([]);
    expect((await api(server.origin, 'api/sessions')).body).toEqual([]);
    expect(alive(pid)).toBe(true);
    const left = await fs.readdir(dirs.runtime);
    expect(left.filter((name) => name.endsWith('.persist.json'))).toEqual([]);
    // the server works: a kernel starts and runs
    const { kernelId } = await newSession(server.origin, 'new.ipynb', 'javascript');
    expect(await run(await channels(server.origin, kernelId), '1 + 1')).toBe('2');
    await api(server.origin, `api/kernels/${kernelId}`, { method: 'DELETE' });
    await stop(server.cli, 'SIGTERM');
    expect(alive(pid)).toBe(true);
    signal(pid, 'SIGKILL');
  }, 120_000);

  it('finds gateway kernels again on the gateway by their ids, dropping one the gateway no longer has', async () => {
    const stub = await startGatewayStub('persist-gateway-token');
    try {
      const dirs = await newDirs();
      const flags = ['--persist-kernels', `--gateway-url=${stub.url}`, `--gateway-auth-token=${stub.token}`];
      const first = await start(dirs, flags);
      const kept = await newSession(first.origin, 'kept.ipynb', 'python3');
      const lost = await newSession(first.origin, 'lost.ipynb', 'python3');
      expect(stub.kernels.has(kept.kernelId) && stub.kernels.has(lost.kernelId)).toBe(true);
      await stop(first.cli, 'SIGTERM');
      // left running on the gateway, not shut down there
      expect([...stub.kernels.keys()].sort()).toEqual([kept.kernelId, lost.kernelId].sort());
      stub.kernels.delete(lost.kernelId);

      const second = await start(dirs, flags);
      const kernels = (await api(second.origin, 'api/kernels')).body as { id: string }[];
      expect(kernels.map((k) => k.id)).toEqual([kept.kernelId]);
      const sessions = (await api(second.origin, 'api/sessions')).body as { id: string }[];
      expect(sessions.map((s) => s.id)).toEqual([kept.id]);
      const socket = await channels(second.origin, kept.kernelId);
      const msgId = sendExecute(socket, '6*7');
      const output = await socket.waitFor(childOf(msgId, 'stream'), 30_000);
      expect(output.content.text).toBe('ran 6*7\n');
      expect((await api(second.origin, `api/kernels/${kept.kernelId}`, { method: 'DELETE' })).status).toBe(204);
      expect(stub.kernels.has(kept.kernelId)).toBe(false);
      await stop(second.cli, 'SIGTERM');
    } finally {
      await stub.close();
    }
  }, 120_000);

  it('is off by default: no kernel is left after a stop', async () => {
    const dirs = await newDirs();
    const server = await start(dirs, []);
    const { kernelId } = await newSession(server.origin, 'gone.ipynb', 'python3');
    await run(await channels(server.origin, kernelId), '1');
    const pid = kernelPidByConnectionFile(kernelId);
    pidsToKill.add(pid);
    await stop(server.cli, 'SIGTERM');
    await waitFor(() => !alive(pid), { timeoutMs: 15_000 });
    expect((await fs.readdir(dirs.runtime)).filter((name) => name.endsWith('.persist.json'))).toEqual([]);
  }, 60_000);
});
