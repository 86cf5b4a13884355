import type { Kernel } from './kernel.js';

/**
 * Stops a kernel's process: shutdown_request on control, wait; SIGTERM to the group, wait;
 * SIGKILL. Connection file and pid record are removed either way. A gateway kernel is shut down
 * there. `waitMs` is split between the two waits.
 */
export async function stopKernelProcess(kernel: Kernel, restart: boolean, waitMs: number): Promise<void> {
  const process = kernel.process;
  if (!process) return;
  if (process.remote) {
    kernel.detach();
    await process.kill();
    return;
  }
  const half = waitMs / 2;
  const exitedWithin = (ms: number) =>
    Promise.race([
      process.exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
    ]);
  if (process.isAlive()) {
    // A kernel still starting has no ports to ask on yet: SIGTERM at once.
    if (kernel.transport) void kernel.request('control', 'shutdown_request', { restart }, half);
    if (!kernel.transport || !(await exitedWithin(half))) {
      process.signal('SIGTERM');
      await exitedWithin(half);
    }
  }
  kernel.detach();
  await process.kill();
}
