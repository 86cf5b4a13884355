// needs: kernel
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFloodKernelSpec } from '../../../testing/flood-kernelspec.js';
import { makeTempDir } from '../../../testing/temp.js';
import { KernelManager, KernelSpecManager, LocalProvisioner } from '../src/index.js';

const SERVE_AFTER_MS = 3000;
const IDLE_DELAY_MS = 300;
let base: string;
let manager: KernelManager;

beforeAll(async () => {
  base = await makeTempDir('nbserve-ready-');
  const kernelsDir = path.join(base, 'kernels');
  await writeFloodKernelSpec(kernelsDir, 'slow', { extraArgs: ['--serve-after', String(SERVE_AFTER_MS)] });
  await writeFloodKernelSpec(kernelsDir, 'late-idle', { extraArgs: ['--idle-delay', String(IDLE_DELAY_MS)] });
  await mkdir(path.join(base, 'root'));
  manager = new KernelManager({
    kernelspecs: new KernelSpecManager({ dirs: [kernelsDir] }),
    provisioner: new LocalProvisioner({ runtimeDir: path.join(base, 'runtime') }),
    rootDir: path.join(base, 'root'),
    warn: () => {},
  });
});
afterAll(async () => {
  await manager.shutdownAll();
  await rm(base, { recursive: true, force: true });
});

describe('readiness of a kernel slow to start', () => {
  it('backs off its kernel_info nudges while the kernel is silent, and is ready as soon as it answers', async () => {
    const kernel = await manager.start({ name: 'slow' });
    const readyAt = Date.now();
    expect(kernel.executionState).toBe('idle');
    const reply = await kernel.request('shell', 'kernel_info_request', {}, 10_000);
    expect(reply).toBeDefined();
    const content = (reply?.content ?? {}) as { test_kernel_info_requests?: number; test_served_at?: number };
    // Nudges at 0, 0.5 and 1.5 s (then 3.5 s) for a kernel that reads its first request after
    // 3 s; every 0.5 s that was 6 or 7. The last one is still awaited when the kernel answers.
    const nudges = (content.test_kernel_info_requests ?? 0) - 1;
    expect(nudges).toBeGreaterThanOrEqual(1);
    expect(nudges).toBeLessThanOrEqual(4);
    // Ready once the kernel reads the nudge already waiting, not at a later one. Measured from when
    // the kernel began serving (its own clock, as the process start takes seconds on a loaded
    // machine); a backoff that waited for its next nudge (after 3.5 s, then 7.5 s) would be later.
    expect(content.test_served_at).toBeGreaterThan(0);
    expect(readyAt - (content.test_served_at ?? 0)).toBeLessThan(2000);
  });
});

describe('readiness of a kernel that publishes idle a while after its reply', () => {
  it('returns the kernel only once it is idle, so nothing of the start changes its model afterwards', async () => {
    const kernel = await manager.start({ name: 'late-idle' });
    const model = kernel.model();
    const late: string[] = [];
    const off = kernel.onIopub((_raw, msgType) => late.push(msgType));
    // Twice the delay: the idle of the readiness request would have come by now.
    await new Promise((resolve) => setTimeout(resolve, 2 * IDLE_DELAY_MS));
    off();
    expect(late).toEqual([]);
    expect(kernel.model()).toEqual(model);
    await manager.shutdown(kernel.id);
  });
});
