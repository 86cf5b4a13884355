import os from 'node:os';
import { ProcessUsage } from '@nbserve/core';
import type { MetricFamily } from './exposition.js';

/** The limits of `--mem-limit` (or `MEM_LIMIT`), `--mem-warning-threshold`, `--track-cpu-percent`, `--cpu-limit`. */
export interface UsageLimits {
  memLimit: number;
  memWarningThreshold: number;
  trackCpuPercent: boolean;
  cpuLimit: number;
}

/** A running kernel's process, as the usage gauges label it. */
export interface KernelProcessInfo {
  id: string;
  name: string;
  pid: number | undefined;
}

/** `GET /api/metrics/v1`'s body, in jupyter-resource-usage's shape. */
export interface UsageReport {
  rss: number;
  limits: {
    memory: { rss: number; pss: number; warn?: boolean };
    cpu?: { cpu: number; warn?: boolean };
  };
  cpu_percent?: number;
  cpu_count?: number;
  /** nbserve's addition, asked for with `?kernels=1`: each running kernel's own usage. */
  kernels?: KernelUsageRow[];
}

/** One kernel's process with its children: resident bytes and percent of one CPU. */
export interface KernelUsageRow {
  id: string;
  name: string;
  rss: number;
  cpu_percent: number;
}

/** jupyter-resource-usage's default `cpu_warning_threshold`. */
const CPU_WARNING_THRESHOLD = 0.1;

/** psutil's `cpu_count()`: logical CPUs. */
function cpuCount(): number {
  return os.cpus().length || 1;
}

/**
 * Memory and CPU of the server with everything it started (kernels, terminals and their children),
 * and of each kernel, from one reading of /proc per call. What jupyter-resource-usage serves:
 * https://github.com/jupyter-server/jupyter-resource-usage (its `ApiHandler` and Prometheus gauges).
 */
export class ResourceUsage {
  readonly #usage = new ProcessUsage();
  readonly #limits: UsageLimits;
  /** The running kernels' processes; the kernel services replace this. */
  kernels: () => KernelProcessInfo[] = () => [];

  constructor(limits: UsageLimits) {
    this.#limits = limits;
  }

  /** The `/api/metrics/v1` body. Warnings as jupyter-resource-usage computes them. */
  report(): UsageReport {
    const { memLimit, memWarningThreshold, trackCpuPercent, cpuLimit } = this.#limits;
    const server = this.#usage.sample([process.pid]).get(process.pid);
    const rss = server?.rss ?? 0;
    const memory: UsageReport['limits']['memory'] = { rss: memLimit, pss: memLimit };
    if (memLimit > 0 && memWarningThreshold !== 0) memory.warn = memLimit - rss < memLimit * memWarningThreshold;
    const report: UsageReport = { rss, limits: { memory } };
    if (trackCpuPercent) {
      const cpuPercent = server?.cpuPercent ?? 0;
      if (cpuLimit !== 0)
        report.limits.cpu = { cpu: cpuLimit, warn: cpuLimit - cpuPercent < cpuLimit * CPU_WARNING_THRESHOLD };
      report.cpu_percent = cpuPercent;
      report.cpu_count = cpuCount();
    }
    return report;
  }

  /** Each running kernel's memory and CPU, from /proc: no message to the kernel, no activity. */
  kernelRows(): KernelUsageRow[] {
    const kernels = this.kernels();
    const pids = kernels.flatMap((k) => (k.pid === undefined ? [] : [k.pid]));
    const sampled = this.#usage.sample(pids);
    return kernels.map(({ id, name, pid }) => {
      const usage = pid === undefined ? undefined : sampled.get(pid);
      return { id, name, rss: usage?.rss ?? 0, cpu_percent: usage?.cpuPercent ?? 0 };
    });
  }

  /**
   * The gauges of jupyter-resource-usage (`total_memory_usage`, `max_memory_usage`, and with
   * `--track-cpu-percent` `total_cpu_usage`, `max_cpu_usage`) and nbserve's per kernel
   * (`nbserve_kernel_memory_bytes`, `nbserve_kernel_cpu_percent`, labelled by kernel id and type).
   */
  families(): MetricFamily[] {
    const kernels = this.kernels().filter((k): k is KernelProcessInfo & { pid: number } => k.pid !== undefined);
    const sampled = this.#usage.sample([process.pid, ...kernels.map((k) => k.pid)]);
    const server = sampled.get(process.pid);
    const { memLimit, trackCpuPercent, cpuLimit } = this.#limits;
    const gauge = (name: string, value: number): MetricFamily => ({
      name,
      help: `counter for ${name.replace(/_/g, ' ')}`,
      type: 'gauge',
      samples: [{ name, value }],
    });
    const perKernel = (name: string, help: string, value: (pid: number) => number): MetricFamily => ({
      name,
      help,
      type: 'gauge',
      samples: kernels.map((k) => ({ name, labels: { kernel_id: k.id, type: k.name }, value: value(k.pid) })),
    });
    const families = [
      gauge('total_memory_usage', server?.rss ?? 0),
      gauge('max_memory_usage', memLimit > 0 ? memLimit : os.totalmem()),
    ];
    if (trackCpuPercent) {
      families.push(
        gauge('total_cpu_usage', server?.cpuPercent ?? 0),
        gauge('max_cpu_usage', cpuLimit > 0 ? cpuLimit : 100 * cpuCount()),
      );
    }
    families.push(
      perKernel(
        'nbserve_kernel_memory_bytes',
        'Resident memory of each kernel process with its children, in bytes',
        (pid) => sampled.get(pid)?.rss ?? 0,
      ),
      perKernel(
        'nbserve_kernel_cpu_percent',
        'CPU use of each kernel process with its children since the previous scrape, in percent of one CPU',
        (pid) => sampled.get(pid)?.cpuPercent ?? 0,
      ),
    );
    return families;
  }
}
