// needs: kernel
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collabSession, openCollabClient } from '../../../testing/collaboration.js';
import { v4CodeCell, v4Notebook } from '../../../testing/notebooks.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';

interface Cell {
  outputs: Array<Record<string, unknown>>;
}

/** input() / getpass() in cells the server runs: the pending prompt, its answer route, interrupt. */
describe('POST /api/kernels/<id>/requests/<rid>/input (python3)', () => {
  let server: TestServer;
  let kernelId: string;

  beforeAll(async () => {
    server = await startServer({ collaborationTuning: { saveDelayMs: 200, pollMs: 200, idleMs: 300 } });
    const res = await server.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
    kernelId = ((await res.json()) as { id: string }).id;
  }, 120_000);

  afterAll(async () => {
    await server.close();
  });

  async function notebook(name: string, source: string): Promise<string> {
    await fs.writeFile(path.join(server.root, name), JSON.stringify(v4Notebook([v4CodeCell(source, { id: 'a' })])));
    return `json:notebook:${(await collabSession(server.url, name)).fileId}`;
  }

  async function execute(documentId: string): Promise<string> {
    const res = await server.fetch(`api/kernels/${kernelId}/execute`, {
      method: 'POST',
      json: { metadata: { document_id: documentId, cell_id: 'a' } },
    });
    expect(res.status).toBe(202);
    return ((await res.json()) as { request_id: string }).request_id;
  }

  const status = async (requestId: string) => {
    const res = await server.fetch(`api/kernels/${kernelId}/requests/${requestId}`);
    return { code: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  async function waitForPrompt(requestId: string) {
    let body: Record<string, unknown> = {};
    await waitFor(
      async () => {
        body = (await status(requestId)).body;
        return body.input_request !== undefined;
      },
      { timeoutMs: 90_000, what: 'the input_request' },
    );
    return body.input_request;
  }

  const answer = (requestId: string, body: unknown) =>
    server.fetch(`api/kernels/${kernelId}/requests/${requestId}/input`, { method: 'POST', json: body });

  const text = (output: Record<string, unknown> | undefined) =>
    Array.isArray(output?.text) ? output.text.join('') : String(output?.text ?? '');

  it('shows the pending prompt to the route and to the shared document; the answer runs on', async () => {
    const documentId = await notebook('ask.ipynb', "x = input('name? '); print('hi', x)");
    const client = await openCollabClient(server.url, 'ask.ipynb');
    try {
      const requestId = await execute(documentId);
      expect(await waitForPrompt(requestId)).toEqual({ prompt: 'name? ', password: false });
      expect((await status(requestId)).code).toBe(202);
      await waitFor(() => client.model.cells[0]?.ymodel.get('input_request') !== undefined, {
        timeoutMs: 10_000,
        what: 'the prompt in the document',
      });
      expect(client.model.cells[0]?.ymodel.get('input_request')).toEqual({
        request_id: requestId,
        kernel_id: kernelId,
        prompt: 'name? ',
        password: false,
      });
      const res = await answer(requestId, { value: 'Ada' });
      expect(res.status).toBe(204);
      await waitFor(async () => (await status(requestId)).code === 200, { timeoutMs: 60_000, what: 'the run' });
      const done = (await status(requestId)).body;
      expect(done.status).toBe('ok');
      expect(done.input_request).toBeUndefined();
      expect(client.model.cells[0]?.ymodel.get('input_request')).toBeUndefined();
      // Answered already: nothing is pending.
      expect((await answer(requestId, { value: 'again' })).status).toBe(409);
    } finally {
      client.close();
    }
    await waitFor(
      async () => {
        const res = await server.fetch('api/contents/ask.ipynb');
        const cells = ((await res.json()) as { content: { cells: Cell[] } }).content.cells;
        return text(cells[0]?.outputs[0]) === 'name? Ada\nhi Ada\n';
      },
      { timeoutMs: 20_000, what: 'the echo and the output in the file' },
    );
  }, 180_000);

  it('masks a password in the echo; interrupt ends a run nobody answers, and the queue moves on', async () => {
    const documentId = await notebook('pw.ipynb', "import getpass\npw = getpass.getpass('Password: ')");
    const first = await execute(documentId);
    expect(await waitForPrompt(first)).toEqual({ prompt: 'Password: ', password: true });
    expect((await answer(first, { value: 'secret' })).status).toBe(204);
    await waitFor(async () => (await status(first)).code === 200, { timeoutMs: 60_000, what: 'the run' });
    let saved = '';
    await waitFor(
      async () => {
        saved = await fs.readFile(path.join(server.root, 'pw.ipynb'), 'utf8');
        const cells = (JSON.parse(saved) as { cells: Cell[] }).cells;
        return text(cells[0]?.outputs[0]) === 'Password: ········\n';
      },
      { timeoutMs: 20_000, what: 'the masked echo in the file' },
    );
    expect(saved).not.toContain('secret');
    expect(saved).not.toContain('input_request');

    // Nobody answers: the kernel waits (as in Jupyter) until it is interrupted.
    const second = await execute(documentId);
    await waitForPrompt(second);
    const queued = await execute(documentId);
    expect((await status(queued)).body.status).toBe('queued');
    expect((await server.fetch(`api/kernels/${kernelId}/interrupt`, { method: 'POST' })).status).toBe(204);
    await waitFor(async () => (await status(second)).code === 200, { timeoutMs: 60_000, what: 'the interrupt' });
    const interrupted = (await status(second)).body;
    expect(interrupted.status).toBe('error');
    expect(interrupted.ename).toBe('KeyboardInterrupt');
    expect(interrupted.input_request).toBeUndefined();
    expect((await answer(second, { value: 'late' })).status).toBe(409);
    // The run behind it was aborted by the failure (stop_on_error), not left hanging.
    await waitFor(async () => (await status(queued)).code === 200, { timeoutMs: 60_000, what: 'the queue' });
    expect((await status(queued)).body.status).toBe('aborted');
  }, 180_000);

  it('refuses bad input: unknown kernel or request, malformed body', async () => {
    const documentId = await notebook('bad.ipynb', "input('? ')");
    const requestId = await execute(documentId);
    await waitForPrompt(requestId);
    const unknownKernel = await server.fetch(`api/kernels/nope/requests/${requestId}/input`, {
      method: 'POST',
      json: { value: 'x' },
    });
    expect(unknownKernel.status).toBe(404);
    expect((await answer('00000000-0000-0000-0000-000000000000', { value: 'x' })).status).toBe(404);
    for (const body of [{}, { value: 3 }, { value: null }, [], 'x']) {
      const res = await answer(requestId, body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as { message: string };
      expect(json.message).not.toMatch(/at .*\.ts/);
    }
    const raw = await server.fetch(`api/kernels/${kernelId}/requests/${requestId}/input`, {
      method: 'POST',
      body: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(400);
    // Still pending after all that; answered it ends.
    expect((await status(requestId)).body.input_request).toEqual({ prompt: '? ', password: false });
    expect((await answer(requestId, { value: 'ok' })).status).toBe(204);
    await waitFor(async () => (await status(requestId)).code === 200, { timeoutMs: 60_000, what: 'the run' });
    expect((await status(requestId)).body.status).toBe('ok');
  }, 180_000);
});
