import { readFileSync } from 'node:fs';
import type { MetricFamily } from './exposition.js';

/** What the kernel manager reports of its pools: kernels ready and starting, the ready ones' pids. */
export type PoolCounts = ReadonlyMap<string, { ready: number; starting: number; pids: readonly number[] }>;

/** Resident bytes of a process (`VmRSS` of /proc/<pid>/status); 0 when it is gone or off Linux. */
function residentBytes(pid: number): number {
  try {
    const kb = /^VmRSS:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

/**
 * `--kernel-pool` in `/metrics`: pooled kernels are not in `/api/kernels` (nor in
 * kernel_currently_running_total) until taken, so their count and memory show here.
 */
export function poolFamilies(counts: PoolCounts): MetricFamily[] {
  if (counts.size === 0) return [];
  const names = [...counts.keys()].sort();
  return [
    {
      name: 'nbserve_kernel_pool_kernels',
      help: 'pooled kernels not yet taken, by kernelspec and state (ready or starting)',
      type: 'gauge',
      samples: names.flatMap((type) => {
        const { ready, starting } = counts.get(type) ?? { ready: 0, starting: 0 };
        return [
          { name: 'nbserve_kernel_pool_kernels', labels: { type, state: 'ready' }, value: ready },
          { name: 'nbserve_kernel_pool_kernels', labels: { type, state: 'starting' }, value: starting },
        ];
      }),
    },
    {
      name: 'nbserve_kernel_pool_resident_memory_bytes',
      help: 'resident memory of the ready pooled kernel processes, by kernelspec',
      type: 'gauge',
      samples: names.map((type) => ({
        name: 'nbserve_kernel_pool_resident_memory_bytes',
        labels: { type },
        value: (counts.get(type)?.pids ?? []).reduce((sum, pid) => sum + residentBytes(pid), 0),
      })),
    },
  ];
}
