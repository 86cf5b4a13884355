// needs: kernel
/**
 * A gateway that is down, silent or gone mid-session: kernel requests fail quickly with a 503
 * that names the gateway, never hang, and the rest of the server (contents, pages) keeps working.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startGatewayStub } from '../../../testing/gateway-stub.js';
import { freePort } from '../../../testing/ports.js';
import { type StartServerOptions, startServer, type TestServer } from '../../../testing/server.js';

async function timed(request: Promise<Response>): Promise<{ status: number; message: string; ms: number }> {
  const began = Date.now();
  const response = await request;
  const text = await response.text();
  const message = response.headers.get('content-type')?.includes('json') ? (JSON.parse(text).message ?? '') : '';
  return { status: response.status, message, ms: Date.now() - began };
}

async function withServer(options: StartServerOptions, run: (fx: TestServer) => Promise<void>) {
  const fx = await startServer({ floodKernels: true, ...options });
  try {
    await run(fx);
  } finally {
    await fx.close();
  }
}

describe('a gateway nothing listens at', () => {
  it('answers kernel requests with a quick 503 naming the gateway, and serves contents and pages', async () => {
    const url = `http://127.0.0.1:${await freePort()}/`;
    await withServer({ gatewayUrl: url }, async (fx) => {
      const expected = `Gateway ${url} is not reachable (ECONNREFUSED); check that it is running`;
      for (const request of [
        () => fx.fetch('api/kernelspecs'),
        () => fx.fetch('api/kernelspecs/python3'),
        () => fx.fetch('kernelspecs/python3/logo-64x64.png'),
        () => fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } }),
        () => fx.fetch('api/kernels', { method: 'POST', json: {} }),
        () =>
          fx.fetch('api/sessions', {
            method: 'POST',
            json: { path: 'a.ipynb', type: 'notebook', kernel: { name: 'python3' } },
          }),
      ]) {
        const answer = await timed(request());
        expect(answer).toMatchObject({ status: 503, message: expected });
        expect(answer.ms).toBeLessThan(3000);
      }
      expect((await fx.fetch('api/contents')).status).toBe(200);
      expect(await (await fx.fetch('api/kernels')).json()).toEqual([]);
      expect(await (await fx.fetch('api/sessions')).json()).toEqual([]);
      expect((await fx.fetch('tree')).status).toBe(200);
    });
  });
});

describe('a gateway that accepts connections but never answers', () => {
  it('gives up after --gateway-request-timeout, while contents are served at once', async () => {
    const held = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      held.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/`;
    try {
      await withServer({ gatewayUrl: url, gatewayRequestTimeout: 1 }, async (fx) => {
        const specs = timed(fx.fetch('api/kernelspecs'));
        const contents = await timed(fx.fetch('api/contents'));
        expect(contents.status).toBe(200);
        expect(contents.ms).toBeLessThan(900);
        expect(await specs).toMatchObject({ status: 503, message: `Gateway ${url} did not answer within 1 s` });
        expect((await specs).ms).toBeLessThan(3000);
      });
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('a gateway that goes down while its kernels run', () => {
  it('fails shutdown and interrupt with 503 and keeps the kernel listed; the server still stops promptly', async () => {
    const stub = await startGatewayStub();
    const fx = await startServer({ floodKernels: true, gatewayUrl: stub.url, gatewayAuthToken: stub.token });
    try {
      const started = await fx.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } });
      expect(started.status).toBe(201);
      const { id } = await started.json();
      await stub.close();
      const expected = `Gateway ${stub.url} is not reachable (ECONNREFUSED); check that it is running`;
      expect(await timed(fx.fetch(`api/kernels/${id}`, { method: 'DELETE' }))).toMatchObject({
        status: 503,
        message: expected,
      });
      expect(await timed(fx.fetch(`api/kernels/${id}/interrupt`, { method: 'POST' }))).toMatchObject({
        status: 503,
        message: expected,
      });
      expect((await fx.fetch(`api/kernels/${id}`)).status).toBe(200);
      expect((await fx.fetch('api/contents')).status).toBe(200);
    } finally {
      const began = Date.now();
      await fx.close();
      expect(Date.now() - began).toBeLessThan(5000);
      expect(fx.logger.lines.some((w) => w.includes(`Gateway ${stub.url} is not reachable`))).toBe(true);
    }
  });
});
