// needs: kernel
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scrape } from '../../../testing/prometheus.js';
import { createTestApp, jupyterError, startServer, type TestServer } from '../../../testing/server.js';
import { waitFor } from '../../../testing/wait.js';
import { USAGE_TIMEOUT_MS } from '../src/routes/api/resource-usage.js';

/** What jupyter-resource-usage's `ApiHandler` answers (jupyter_resource_usage/api.py). */
interface Report {
  rss: number;
  limits: { memory: { rss: number; pss: number; warn?: boolean }; cpu?: { cpu: number; warn: boolean } };
  cpu_percent?: number;
  cpu_count?: number;
}

/** Starts a kernel and waits until it answered kernel_info (`POST /api/kernels` returns while it starts). */
async function startKernel(s: TestServer, name: string): Promise<{ id: string; pid: number }> {
  const { id } = (await (await s.fetch('api/kernels', { method: 'POST', json: { name } })).json()) as { id: string };
  await waitFor(
    async () =>
      ((await (await s.fetch(`api/kernels/${id}`)).json()) as { execution_state: string }).execution_state === 'idle',
  );
  return { id, pid: s.app.services.kernels.get(id).process?.pid as number };
}

const rssOf = (pid: number) =>
  Number(/^VmRSS:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

describe('GET /api/metrics/v1 (jupyter-resource-usage)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it('is authenticated like the API', async () => {
    const res = await s.fetch('api/metrics/v1', { auth: false });
    expect(res.status).toBe(403);
    expect(await jupyterError(res)).toEqual({ message: 'Forbidden', reason: null });
  });

  it('reports the rss of the server with its kernels and terminals, no limit, no CPU by default', async () => {
    const kernel = (await (await s.fetch('api/kernels', { method: 'POST', json: { name: 'python3' } })).json()) as {
      id: string;
    };
    const terminal = (await (await s.fetch('api/terminals', { method: 'POST', json: {} })).json()) as { name: string };
    try {
      const kernelPid = s.app.services.kernels.get(kernel.id).process?.pid as number;
      const shellPid = s.app.services.terminals?.manager.get(terminal.name).pid as number;
      const res = await s.fetch('api/metrics/v1');
      expect(res.status).toBe(200);
      const report = (await res.json()) as Report;
      expect(Object.keys(report).sort()).toEqual(['limits', 'rss']);
      expect(report.limits).toEqual({ memory: { rss: 0, pss: 0 } });
      // The server (this test process) plus the kernel and the terminal's shell, at least.
      expect(report.rss).toBeGreaterThanOrEqual(rssOf(process.pid) * 0.9 + rssOf(kernelPid) + rssOf(shellPid));
    } finally {
      await s.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' });
      await s.fetch(`api/terminals/${terminal.name}`, { method: 'DELETE' });
    }
  });
});

describe("GET /api/metrics/v1?kernels=1 (what nbserve's pages show)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it("adds each kernel's memory and CPU from /proc, without a message to the kernel or any activity", async () => {
    const python = await startKernel(s, 'python3');
    const js = await startKernel(s, 'javascript');
    try {
      const kernelBefore = ((await (await s.fetch(`api/kernels/${python.id}`)).json()) as { last_activity: string })
        .last_activity;
      const before = (await (await s.fetch('api/status')).json()) as { last_activity: string };
      await new Promise((resolve) => setTimeout(resolve, 50));
      const report = (await (await s.fetch('api/metrics/v1?kernels=1')).json()) as Report & {
        kernels: { id: string; name: string; rss: number; cpu_percent: number }[];
      };
      expect(report.kernels.map((k) => k.id).sort()).toEqual([python.id, js.id].sort());
      for (const row of report.kernels) {
        expect(row.rss, row.name).toBeGreaterThanOrEqual(rssOf(row.id === python.id ? python.pid : js.pid) * 0.5);
        expect(row.cpu_percent).toBeGreaterThanOrEqual(0);
      }
      expect(report.rss).toBeGreaterThan(report.kernels.reduce((sum, k) => sum + k.rss, 0));
      expect(((await (await s.fetch('api/status')).json()) as { last_activity: string }).last_activity).toBe(
        before.last_activity,
      );
      const kernelAfter = ((await (await s.fetch(`api/kernels/${python.id}`)).json()) as { last_activity: string })
        .last_activity;
      expect(kernelAfter).toBe(kernelBefore);
    } finally {
      await s.fetch(`api/kernels/${python.id}`, { method: 'DELETE' });
      await s.fetch(`api/kernels/${js.id}`, { method: 'DELETE' });
    }
  });

  it('a bad kernels= is a 400 Jupyter error', async () => {
    const res = await s.fetch('api/metrics/v1?kernels=yes');
    expect(res.status).toBe(400);
    expect((await jupyterError(res)).message).toContain('kernels must be 0 or 1');
  });
});

describe('limits', () => {
  const saved = process.env.MEM_LIMIT;
  afterEach(() => {
    if (saved === undefined) delete process.env.MEM_LIMIT;
    else process.env.MEM_LIMIT = saved;
  });

  it('MEM_LIMIT sets limits.memory; warn once less than --mem-warning-threshold of it is left', async () => {
    process.env.MEM_LIMIT = String(64 * 1024 ** 4);
    const roomy = await createTestApp();
    try {
      const report = (await (await roomy.request('api/metrics/v1')).json()) as Report;
      expect(report.limits).toEqual({ memory: { rss: 64 * 1024 ** 4, pss: 64 * 1024 ** 4, warn: false } });
    } finally {
      await roomy.close();
    }
    process.env.MEM_LIMIT = String(1024 * 1024);
    const tight = await createTestApp({ memWarningThreshold: 0.5 });
    try {
      const report = (await (await tight.request('api/metrics/v1')).json()) as Report;
      expect(report.limits.memory).toEqual({ rss: 1024 * 1024, pss: 1024 * 1024, warn: true });
    } finally {
      await tight.close();
    }
    // --mem-limit wins over MEM_LIMIT; a threshold of 0 never warns, as upstream.
    const flag = await createTestApp({ memLimit: 2 * 1024 ** 3, memWarningThreshold: 0 });
    try {
      const report = (await (await flag.request('api/metrics/v1')).json()) as Report;
      expect(report.limits.memory).toEqual({ rss: 2 * 1024 ** 3, pss: 2 * 1024 ** 3 });
    } finally {
      await flag.close();
    }
  });

  it('--track-cpu-percent adds cpu_percent and cpu_count, --cpu-limit limits.cpu', async () => {
    const f = await createTestApp({ trackCpuPercent: true, cpuLimit: 2 });
    try {
      await f.request('api/metrics/v1');
      // Some CPU between two samples, as the status bar polls.
      const until = Date.now() + 150;
      while (Date.now() < until) Math.sqrt(Math.random());
      const report = (await (await f.request('api/metrics/v1')).json()) as Report;
      expect(Object.keys(report).sort()).toEqual(['cpu_count', 'cpu_percent', 'limits', 'rss']);
      expect(report.cpu_count).toBe(os.cpus().length);
      expect(report.cpu_percent).toBeGreaterThan(0);
      expect(report.limits.cpu).toEqual({ cpu: 2, warn: expect.any(Boolean) });
    } finally {
      await f.close();
    }
  });
});

describe('GET /api/metrics/v1/kernel_usage/get_usage/<kernel_id>', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it.each(['python3', 'javascript'])('%s: the whole usage_reply plus kernel_id', async (name) => {
    const kernel = await startKernel(s, name);
    try {
      const res = await s.fetch(`api/metrics/v1/kernel_usage/get_usage/${kernel.id}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown> & { content: Record<string, unknown> };
      expect(Object.keys(body).sort()).toEqual(
        ['buffers', 'content', 'header', 'kernel_id', 'metadata', 'msg_id', 'msg_type', 'parent_header'].sort(),
      );
      expect(body).toMatchObject({
        kernel_id: kernel.id,
        msg_type: 'usage_reply',
        parent_header: { msg_type: 'usage_request' },
      });
      expect(body.content).toMatchObject({
        hostname: os.hostname(),
        pid: kernel.pid,
        kernel_cpu: expect.any(Number),
        kernel_memory: expect.any(Number),
        cpu_count: os.cpus().length,
        host_usage_flag: true,
      });
      expect(body.content.kernel_memory).toBeGreaterThan(10 * 1024 * 1024);
      expect(Object.keys(body.content.host_virtual_memory as object)).toEqual(
        expect.arrayContaining(['total', 'available', 'percent', 'used', 'free']),
      );
    } finally {
      await s.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' });
    }
  });

  it('a kernel that does not answer: {content: {reason: "timeout", timeout_ms}, kernel_id}', async () => {
    const kernel = await startKernel(s, 'javascript');
    const pid = kernel.pid;
    process.kill(pid, 'SIGSTOP');
    try {
      const res = await s.fetch(`api/metrics/v1/kernel_usage/get_usage/${kernel.id}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        content: { reason: 'timeout', timeout_ms: USAGE_TIMEOUT_MS },
        kernel_id: kernel.id,
      });
    } finally {
      process.kill(pid, 'SIGCONT');
      await s.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' });
    }
  }, 30_000);

  it('an unknown kernel is a 404 Jupyter error', async () => {
    const res = await s.fetch('api/metrics/v1/kernel_usage/get_usage/00000000-0000-0000-0000-000000000000');
    expect(res.status).toBe(404);
    expect((await jupyterError(res)).message).toContain('Kernel does not exist');
    expect((await s.fetch('api/metrics/v1/kernel_usage/get_usage/..%2F..%2Fetc')).status).toBe(404);
  });

  it('/metrics: per-kernel memory and CPU gauges, and jupyter-resource-usage’s totals', async () => {
    const kernel = await startKernel(s, 'python3');
    try {
      const metrics = await scrape(s.fetch);
      const labels = { kernel_id: kernel.id, type: 'python3' };
      expect(metrics.sample('nbserve_kernel_memory_bytes', labels)).toBeGreaterThan(10 * 1024 * 1024);
      expect(metrics.sample('nbserve_kernel_cpu_percent', labels)).toBeGreaterThanOrEqual(0);
      expect(metrics.value('total_memory_usage')).toBeGreaterThan(metrics.value('nbserve_kernel_memory_bytes', labels));
      expect(metrics.value('max_memory_usage')).toBe(os.totalmem());
    } finally {
      await s.fetch(`api/kernels/${kernel.id}`, { method: 'DELETE' });
    }
  });
});
