// needs: kernel
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelHarness, runOnClient } from '../../../testing/kernels.js';
import { waitFor } from '../../../testing/wait.js';
import { type Kernel, KernelManager, LocalProvisioner, protocol } from '../src/index.js';

let h: Awaited<ReturnType<typeof createKernelHarness>>;

beforeAll(async () => {
  h = await createKernelHarness({ restartLimit: 1, stableStartMs: 10_000 });
});
afterAll(async () => {
  await h.dispose();
});

describe('kernel lifecycle with the flood kernel', () => {
  it('interrupts by interrupt_request on control when interrupt_mode is message', async () => {
    const kernel = await h.manager.start({ name: 'flood' });
    const client = kernel.createClient();
    const running = runOnClient(kernel, client, 'execute_request', { code: 'sleep 20000' });
    await waitFor(() => kernel.executionState === 'busy', { timeoutMs: 20_000 });
    await h.manager.interrupt(kernel.id);
    const { reply } = await running;
    expect(reply.content).toMatchObject({ status: 'error', ename: 'KeyboardInterrupt' });
    client.close();
    await h.manager.shutdown(kernel.id);
  });

  it('tracks busy/idle only for tracked parents: kernel_info does not make a kernel busy', async () => {
    const kernel = await h.manager.start({ name: 'flood' });
    const states: string[] = [];
    const off = kernel.onIopub(() => states.push(kernel.executionState));
    await kernel.request('shell', 'kernel_info_request', {}, 5000);
    await waitFor(() => states.length > 0, { timeoutMs: 5000, what: 'the status of the request' });
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((s) => s === 'idle')).toBe(true);
    off();
    await h.manager.shutdown(kernel.id);
  });

  it('gives up after the restart limit: dead, removed, listeners told, no process or files left', async () => {
    const kernel: Kernel = await h.manager.start({ name: 'dies' });
    const events: string[] = [];
    kernel.onLifecycle((e) => events.push(e));
    const removed: string[] = [];
    const off = h.manager.onRemoved((id) => removed.push(id));
    await waitFor(() => removed.includes(kernel.id), { timeoutMs: 50_000 });
    expect(events.filter((e) => e === 'restarting').length).toBeGreaterThanOrEqual(1);
    expect(events.at(-1)).toBe('dead');
    expect(kernel.executionState).toBe('dead');
    expect(h.manager.has(kernel.id)).toBe(false);
    expect(readdirSync(h.runtimeDir).filter((f) => f.includes(kernel.id))).toEqual([]);
    expect(h.warnings.filter((w) => w.includes('died unexpectedly')).length).toBeGreaterThanOrEqual(2);
    off();
  });

  it('queues a client message sent while the kernel restarts and delivers it afterwards', async () => {
    const kernel = await h.manager.start({ name: 'flood' });
    const client = kernel.createClient();
    const restarting = h.manager.restart(kernel.id);
    const result = runOnClient(kernel, client, 'execute_request', { code: 'queued' });
    await restarting;
    const { iopub } = await result;
    expect(iopub.find((m) => m.header.msg_type === 'execute_result')?.content.data).toEqual({ 'text/plain': 'queued' });
    client.close();
    await h.manager.shutdown(kernel.id);
  });

  it('culls idle kernels by injected time, sparing connected and busy ones unless told', async () => {
    let now = Date.now();
    const manager = new KernelManager({
      kernelspecs: h.kernelspecs,
      provisioner: new LocalProvisioner({ runtimeDir: h.runtimeDir }),
      rootDir: h.root,
      culling: { idleTimeout: 60, interval: 3600 },
      now: () => new Date(now),
      warn: () => {},
    });
    const idle = await manager.start({ name: 'flood' });
    const connected = await manager.start({ name: 'flood' });
    connected.connections = 1;
    expect(await manager.cullIdle()).toEqual([]);
    now += 61_000;
    expect(await manager.cullIdle()).toEqual([idle.id]);
    expect(manager.has(idle.id)).toBe(false);
    expect(manager.has(connected.id)).toBe(true);
    await manager.shutdownAll();
    await expect(manager.start({ name: 'flood' })).rejects.toThrow(/shutting down/);
  });

  it('a kernel shut down while starting does not survive: start fails, no process or files', async () => {
    const starting = h.manager.start({ name: 'flood' });
    await waitFor(() => h.manager.list().length === 1, { timeoutMs: 20_000 });
    const [model] = h.manager.list();
    await h.manager.shutdown(model?.id as string);
    await expect(starting).rejects.toMatchObject({ kind: 'gone' });
    expect(h.manager.list()).toEqual([]);
    await waitFor(() => readdirSync(h.runtimeDir).filter((f) => f.includes(model?.id as string)).length === 0, {
      timeoutMs: 20_000,
    });
  });

  it('refuses an unknown kernel name and a path outside the root', async () => {
    await expect(h.manager.start({ name: 'nope' })).rejects.toThrow('No such kernel named nope');
    await expect(h.manager.start({ name: 'flood', path: '../x' })).rejects.toThrow(/Invalid kernel path/);
    expect(h.manager.list()).toEqual([]);
  });
});

describe('protocol use by the kernel', () => {
  it('answers kernel_info through Kernel.request with a parsed reply', async () => {
    const kernel = await h.manager.start({ name: 'flood' });
    const reply = await kernel.request('control', 'kernel_info_request', {}, 5000);
    expect(reply?.header.msg_type).toBe('kernel_info_reply');
    expect(reply?.content).toMatchObject({ implementation: 'flood', protocol_version: protocol.PROTOCOL_VERSION });
    await h.manager.shutdown(kernel.id);
  });
});
