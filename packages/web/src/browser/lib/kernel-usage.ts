import { formatSize } from '../../shared/format.js';
import { api } from './api.js';

/** A kernel's memory (bytes) and CPU (percent of one CPU), as the kernel itself reports them. */
export interface KernelUsage {
  memory: number;
  cpu: number;
}

/** How often the notebook page asks again, as jupyter-resource-usage's status bar does. */
export const USAGE_INTERVAL_MS = 5000;

/**
 * Asks the server for the kernel's `usage_reply` (`/api/metrics/v1/kernel_usage/get_usage/<id>`);
 * `undefined` when the kernel did not answer or is gone.
 */
export async function kernelUsage(kernelId: string): Promise<KernelUsage | undefined> {
  try {
    const body = await api<{ content?: Record<string, unknown> }>(
      `api/metrics/v1/kernel_usage/get_usage/${encodeURIComponent(kernelId)}`,
    );
    const { kernel_memory: memory, kernel_cpu: cpu } = body.content ?? {};
    return typeof memory === 'number' && typeof cpu === 'number' ? { memory, cpu } : undefined;
  } catch {
    return undefined;
  }
}

/** `123 MB · 4.5% CPU`. */
export function formatUsage(usage: KernelUsage): string {
  return `${formatSize(usage.memory)} · ${usage.cpu.toFixed(1)}% CPU`;
}

/** Shows `kernelId()`'s usage in `element` now and every few seconds while the page is visible. */
export function watchKernelUsage(element: HTMLElement, kernelId: () => string | undefined): void {
  const update = async () => {
    const id = kernelId();
    const usage = id && document.visibilityState !== 'hidden' ? await kernelUsage(id) : undefined;
    if (id && document.visibilityState === 'hidden') return; // keep the last numbers while hidden
    element.textContent = usage ? formatUsage(usage) : '';
    element.title = usage ? 'Kernel memory and CPU' : '';
  };
  void update();
  setInterval(() => void update(), USAGE_INTERVAL_MS);
}
