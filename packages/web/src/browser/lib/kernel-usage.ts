import { formatSize } from '../../shared/format.js';
import { api } from './api.js';

/** A kernel's memory (bytes) and CPU (percent of one CPU), its process with its children. */
export interface KernelUsage {
  memory: number;
  cpu: number;
}

/** How often the notebook page asks again, as jupyter-resource-usage's status bar does. */
export const USAGE_INTERVAL_MS = 5000;

interface Report {
  kernels?: { id: string; rss: number; cpu_percent: number }[];
}

/**
 * Every running kernel's usage by id, from `api/metrics/v1?kernels=1`: the server reads it from
 * /proc, so asking sends nothing to the kernels and does not count as activity (an open page
 * must not keep an idle server from being culled). Empty when it cannot be had.
 */
export async function kernelUsages(): Promise<Map<string, KernelUsage>> {
  try {
    const report = await api<Report>('api/metrics/v1', { query: { kernels: '1' } });
    return new Map((report.kernels ?? []).map((k) => [k.id, { memory: k.rss, cpu: k.cpu_percent }]));
  } catch {
    return new Map();
  }
}

/** `123 MB · 4.5% CPU`. */
export function formatUsage(usage: KernelUsage): string {
  return `${formatSize(usage.memory)} · ${usage.cpu.toFixed(1)}% CPU`;
}

/** Shows `kernelId()`'s usage in `element` now and every few seconds while the page is visible. */
export function watchKernelUsage(element: HTMLElement, kernelId: () => string | undefined): void {
  const update = async () => {
    if (document.visibilityState === 'hidden') return; // the last numbers stay
    const id = kernelId();
    const usage = id ? (await kernelUsages()).get(id) : undefined;
    element.textContent = usage && usage.memory > 0 ? formatUsage(usage) : '';
    element.title = element.textContent ? 'Kernel memory and CPU' : '';
  };
  void update();
  setInterval(() => void update(), USAGE_INTERVAL_MS);
}
