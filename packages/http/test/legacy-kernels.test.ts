// needs: kernel
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jupyterError, startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';
import { waitFor } from '../../../testing/wait.js';
import { type Frame, open } from '../../../testing/ws-recorder.js';

function v4Execute(code: string, session: string): Frame {
  return {
    header: { msg_id: randomUUID(), username: 'old', session, msg_type: 'execute_request' },
    parent_header: {},
    metadata: {},
    content: { code, silent: false, store_history: true, user_variables: [], user_expressions: {}, allow_stdin: true },
  };
}

/** Waits until the server attached `count` sockets to the kernel (the credentials frame was checked). */
async function attached(s: TestServer, kernelId: string, count: number): Promise<void> {
  const connections = async () =>
    ((await (await s.fetch(`api/kernels/${kernelId}`)).json()) as { connections: number }).connections;
  await waitFor(async () => (await connections()) >= count, { what: `${count} sockets attached` });
}

describe('an old (IPython 1.x) client session against real python3 kernels', () => {
  let s: TestServer;
  let origin: string;
  let loginCookie: string;

  beforeAll(async () => {
    s = await startServer({ kernelSpecDirs: ['/usr/share/jupyter/kernels'] });
    origin = s.origin;
    // Log in the way a browser does (?token= once sets the signed login cookie).
    const res = await s.fetch(`/api/status?token=${TOKEN}`, { auth: false });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('username-'));
    if (!setCookie) throw new Error('no login cookie');
    loginCookie = setCookie.split(';')[0] as string;
  });
  afterAll(async () => s.close());

  it('lists, creates, opens kernel sockets with first-frame auth, executes, saves v3, renames, copies, prints, deletes', async () => {
    // list + create
    expect(await (await s.fetch('/notebooks')).json()).toEqual([]);
    const notebookId = (await (await s.fetch('/notebooks', { method: 'POST' })).json()) as string;

    // start the notebook's kernel; a second request reuses it
    const started = await s.fetch(`/kernels?notebook=${notebookId}`, { method: 'POST' });
    expect(started.status).toBe(200);
    const { ws_url, kernel_id } = (await started.json()) as { ws_url: string; kernel_id: string };
    expect(ws_url).toBe(`ws://127.0.0.1:${s.port}`);
    expect(started.headers.get('location')).toBe(`/kernels/${kernel_id}`);
    const again = (await (await s.fetch(`/kernels?notebook=${notebookId}`, { method: 'POST' })).json()) as {
      kernel_id: string;
    };
    expect(again.kernel_id).toBe(kernel_id);
    expect(await (await s.fetch('/kernels')).json()).toEqual([kernel_id]);
    expect(((await (await s.fetch('/notebooks')).json()) as { kernel_id: string }[])[0]?.kernel_id).toBe(kernel_id);
    const model = (await (await s.fetch(`/kernels/${kernel_id}`)).json()) as { id: string; name: string };
    expect(model).toMatchObject({ id: kernel_id, name: 'python3' });

    // per-channel sockets: no credentials on the upgrade, the cookie arrives in the first frame
    const session = randomUUID();
    const headers = { Origin: origin };
    const shell = await open(`${ws_url}/kernels/${kernel_id}/shell`, headers);
    const iopub = await open(`${ws_url}/kernels/${kernel_id}/iopub`, headers);
    shell.ws.send(`${session}:${loginCookie}; other=1`);
    iopub.ws.send(`${session}:${loginCookie}`);

    // a current client on the same kernel sees the same output
    const modern = await open(
      `${ws_url}/api/kernels/${kernel_id}/channels?session_id=${randomUUID()}&token=${TOKEN}`,
      headers,
    );

    const request = v4Execute('6*7', session);
    await attached(s, kernel_id, 3);
    shell.ws.send(JSON.stringify(request));
    const pyout = await iopub.waitFor(
      (f) => f.header.msg_type === 'pyout' && f.parent_header.msg_id === request.header.msg_id,
    );
    expect(pyout.content).toMatchObject({ data: { 'text/plain': '42' } });
    expect(pyout.header).not.toHaveProperty('date');
    expect(pyout.header).not.toHaveProperty('version');
    expect(pyout).not.toHaveProperty('channel');
    const reply = await shell.waitFor((f) => f.header.msg_type === 'execute_reply');
    expect(reply.parent_header.msg_id).toBe(request.header.msg_id);
    expect(reply.content).toMatchObject({ status: 'ok', user_variables: {} });
    await iopub.waitFor((f) => f.header.msg_type === 'pyin' && f.parent_header.msg_id === request.header.msg_id);
    const modernResult = await modern.waitFor(
      (f) => f.header.msg_type === 'execute_result' && f.parent_header.msg_id === request.header.msg_id,
    );
    expect(modernResult.content).toMatchObject({ data: { 'text/plain': '42' } });

    // stream output arrives as v4 `data`
    const printing = v4Execute('print("hello old client")', session);
    shell.ws.send(JSON.stringify(printing));
    const stream = await iopub.waitFor(
      (f) => f.header.msg_type === 'stream' && f.parent_header.msg_id === printing.header.msg_id,
    );
    expect(stream.content).toEqual({ name: 'stdout', data: 'hello old client\n' });

    // save in v3 with the output, renaming through metadata.name
    const v3 = {
      metadata: { name: 'Session' },
      nbformat: 3,
      nbformat_minor: 0,
      worksheets: [
        {
          metadata: {},
          cells: [
            {
              cell_type: 'code',
              collapsed: false,
              input: '6*7',
              language: 'python',
              metadata: {},
              prompt_number: 1,
              outputs: [{ output_type: 'pyout', prompt_number: 1, text: '42', metadata: {} }],
            },
          ],
        },
      ],
    };
    expect((await s.fetch(`/notebooks/${notebookId}`, { method: 'PUT', body: JSON.stringify(v3) })).status).toBe(204);
    const listed = (await (await s.fetch('/notebooks')).json()) as {
      notebook_id: string;
      name: string;
      kernel_id: string;
    }[];
    expect(listed).toEqual([{ notebook_id: notebookId, name: 'Session', kernel_id }]);
    // the session followed the rename, and the current API opens the notebook with its output
    const sessions = (await (await s.fetch('/api/sessions')).json()) as { path: string; kernel: { id: string } }[];
    expect(sessions.map((x) => [x.path, x.kernel.id])).toEqual([['Session.ipynb', kernel_id]]);
    const current = (await (await s.fetch('/api/contents/Session.ipynb')).json()) as {
      content: { cells: { outputs: { output_type: string; data: Record<string, string> }[] }[] };
    };
    expect(current.content.cells[0]?.outputs[0]).toMatchObject({
      output_type: 'execute_result',
      data: { 'text/plain': '42' },
    });

    // copy, print
    const copy = await s.fetch(`/${notebookId}/copy`);
    expect(copy.headers.get('location')).toBe('/notebooks/Session-Copy0.ipynb');
    const print = await s.fetch(`/${notebookId}/print`);
    expect(print.status).toBe(200);
    expect(await print.text()).toContain('6*7');

    // interrupt (POST), restart (same id back), kill (GET with the token)
    expect((await s.fetch(`/kernels/${kernel_id}/interrupt`, { method: 'POST' })).status).toBe(204);
    const restarted = await s.fetch(`/kernels/${kernel_id}/restart`, { method: 'POST' });
    expect(await restarted.json()).toEqual({ ws_url, kernel_id });
    // The same sockets keep working on the restarted kernel (fresh namespace: execution count 1).
    const afterRestart = v4Execute('"still here"', session);
    shell.ws.send(JSON.stringify(afterRestart));
    const out = await iopub.waitFor(
      (f) => f.header.msg_type === 'pyout' && f.parent_header.msg_id === afterRestart.header.msg_id,
    );
    expect(out.content).toMatchObject({ execution_count: 1, data: { 'text/plain': "'still here'" } });
    expect((await s.fetch(`/kernels/${kernel_id}/kill`)).status).toBe(204);
    expect(await (await s.fetch('/kernels')).json()).toEqual([]);
    expect((await iopub.waitClosed()).code).toBe(1001);

    // delete
    expect((await s.fetch(`/notebooks/${notebookId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await s.fetch(`/notebooks/${notebookId}`)).status).toBe(404);
    shell.ws.close();
    modern.ws.close();
  });

  it('2.x socket paths: input() round-trips through the stdin socket of the same client', async () => {
    const { kernel_id } = (await (await s.fetch('/kernels', { method: 'POST' })).json()) as { kernel_id: string };
    const base = `ws://127.0.0.1:${s.port}/api/kernels/${kernel_id}`;
    const headers = { Origin: origin };
    const session = randomUUID();
    const [shell, stdin, iopub] = await Promise.all(
      ['shell', 'stdin', 'iopub'].map((c) => open(`${base}/${c}`, headers)),
    );
    for (const socket of [shell, stdin, iopub]) socket?.ws.send(`${session}:${loginCookie}`);
    await attached(s, kernel_id, 3);
    const request = v4Execute('name = input("who? ")\nprint("hi", name)', session);
    shell?.ws.send(JSON.stringify(request));
    const prompt = await (stdin as NonNullable<typeof stdin>).waitFor((f) => f.header.msg_type === 'input_request');
    expect(prompt.content).toEqual({ prompt: 'who? ' });
    stdin?.ws.send(
      JSON.stringify({
        header: { msg_id: randomUUID(), username: 'old', session, msg_type: 'input_reply' },
        parent_header: prompt.header,
        metadata: {},
        content: { value: 'ada' },
      }),
    );
    const greeting = await (iopub as NonNullable<typeof iopub>).waitFor(
      (f) => f.header.msg_type === 'stream' && f.parent_header.msg_id === request.header.msg_id,
    );
    expect(greeting.content).toEqual({ name: 'stdout', data: 'hi ada\n' });
    for (const socket of [shell, stdin, iopub]) socket?.ws.close();
    expect((await s.fetch(`/kernels/${kernel_id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('a legacy iopub socket that stops reading loses output, not server memory; status still arrives', async () => {
    const { kernel_id } = (await (await s.fetch('/kernels', { method: 'POST' })).json()) as { kernel_id: string };
    const base = `ws://127.0.0.1:${s.port}/kernels/${kernel_id}`;
    const session = randomUUID();
    const shell = await open(`${base}/shell?token=${TOKEN}`, { Origin: origin });
    const iopub = await open(`${base}/iopub?token=${TOKEN}`, { Origin: origin });
    shell.ws.send(`${session}:`);
    iopub.ws.send(`${session}:`);
    await attached(s, kernel_id, 2);
    const socket = (iopub.ws as unknown as { _socket: import('node:net').Socket })._socket;
    socket.pause(); // a client that stops reading
    const flood = v4Execute(
      'import sys\nfor _ in range(400):\n    sys.stdout.write(("x" * 999 + "\\n") * 100)\n    sys.stdout.flush()',
      session,
    );
    shell.ws.send(JSON.stringify(flood));
    await shell.waitFor(
      (f) => f.header.msg_type === 'execute_reply' && f.parent_header.msg_id === flood.header.msg_id,
      60_000,
    );
    await new Promise((r) => setTimeout(r, 1000));
    socket.resume();
    await iopub.waitFor(
      (f) =>
        f.header.msg_type === 'status' &&
        f.content.execution_state === 'idle' &&
        f.parent_header.msg_id === flood.header.msg_id,
      60_000,
    );
    const received = iopub.frames
      .filter((f) => f.header.msg_type === 'stream' && f.parent_header.msg_id === flood.header.msg_id)
      .reduce((n, f) => n + String(f.content.data).length, 0);
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(40_000 * 1000); // some output was dropped rather than queued
    shell.ws.close();
    iopub.ws.close();
    expect((await s.fetch(`/kernels/${kernel_id}`, { method: 'DELETE' })).status).toBe(204);
  }, 120_000);

  it('refuses sockets whose first frame is not credentials, or whose credentials are wrong, or from another origin', async () => {
    const { kernel_id } = (await (await s.fetch('/kernels', { method: 'POST' })).json()) as { kernel_id: string };
    const url = `ws://127.0.0.1:${s.port}/kernels/${kernel_id}/shell`;
    const headers = { Origin: origin };

    const skipped = await open(url, headers);
    skipped.ws.send(JSON.stringify(v4Execute('1', 'x')));
    expect((await skipped.waitClosed()).code).toBe(1008);

    const forged = await open(url, headers);
    forged.ws.send(`abc:username-127-0-0-1-${s.port}=forged.123.sig`);
    expect((await forged.waitClosed()).code).toBe(1008);

    const binary = await open(url, headers);
    binary.ws.send(Buffer.from([1, 2, 3]));
    expect((await binary.waitClosed()).code).toBe(1008);

    await expect(open(url, { Origin: 'http://evil.example' })).rejects.toThrow(/403/);
    await expect(
      open(`ws://127.0.0.1:${s.port}/kernels/00000000-0000-4000-8000-000000000000/iopub`, headers),
    ).rejects.toThrow(/404/);

    // With the token on the upgrade, the first frame is still consumed, never forwarded; a request
    // sent right behind it (before the credentials were checked) is kept, not lost.
    const withToken = await open(`${url}?token=${TOKEN}`, headers);
    const request = v4Execute('1+1', 'session-1');
    withToken.ws.send('session-1:');
    withToken.ws.send(JSON.stringify(request));
    const reply = await withToken.waitFor((f) => f.header.msg_type === 'execute_reply');
    expect(reply.content.status).toBe('ok');
    withToken.ws.close();
    await s.fetch(`/kernels/${kernel_id}`, { method: 'DELETE' });
  });

  it('GET actions need the token or XSRF, never a plain cookie; bad ids and actions are Jupyter errors', async () => {
    const { kernel_id } = (await (await s.fetch('/kernels', { method: 'POST' })).json()) as { kernel_id: string };
    const cookieOnly = await s.fetch(`/kernels/${kernel_id}/kill`, { auth: false, headers: { Cookie: loginCookie } });
    expect(cookieOnly.status).toBe(403);
    expect(await (await s.fetch('/kernels')).json()).toEqual([kernel_id]);
    const xsrf = 'abcdefabcdefabcdef';
    const withXsrf = await s.fetch(`/kernels/${kernel_id}/interrupt?_xsrf=${xsrf}`, {
      auth: false,
      headers: { Cookie: `${loginCookie}; _xsrf=${xsrf}` },
    });
    expect(withXsrf.status).toBe(204);

    const unknown = '00000000-0000-4000-8000-000000000000';
    const cases: [string, string, number, RegExp][] = [
      ['GET', `/kernels/${unknown}`, 404, /Kernel does not exist/],
      ['POST', `/kernels/${unknown}/restart`, 404, /Kernel does not exist/],
      ['GET', `/kernels/${unknown}/kill`, 404, /Kernel does not exist/],
      ['POST', `/kernels/${kernel_id}/explode`, 404, /Unknown kernel action/],
      ['POST', `/kernels?notebook=${unknown}`, 404, /Notebook does not exist/],
      ['DELETE', `/kernels/not-a-kernel`, 404, /Kernel does not exist/],
    ];
    for (const [method, path, status, message] of cases) {
      const res = await s.fetch(path, { method });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect((await jupyterError(res)).message).toMatch(message);
    }
    expect(await (await s.fetch('/kernels')).json()).toEqual([kernel_id]);
    expect((await s.fetch(`/kernels/${kernel_id}/kill`, { method: 'POST' })).status).toBe(204);
  });
});
