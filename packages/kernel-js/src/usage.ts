import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * The kernel's answer to `usage_request` (control channel), with the fields ipykernel sends since
 * 6.11, which jupyter-resource-usage's kernel panel reads: this process's CPU (percent of one CPU
 * since the last request, 0 the first time, as psutil's `cpu_percent()`) and memory, the host's
 * CPU use (left out the first time, as ipykernel does), its CPU count and its memory.
 */
export class UsageReporter {
  #lastCpu = process.cpuUsage();
  #lastAt = process.hrtime.bigint();
  #first = true;
  #lastHost = hostTimes();

  reply(): Record<string, unknown> {
    const now = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const wallMicros = Number(now - this.#lastAt) / 1000;
    const usedMicros = cpu.user - this.#lastCpu.user + (cpu.system - this.#lastCpu.system);
    const kernelCpu = this.#first || wallMicros <= 0 ? 0 : round1((usedMicros / wallMicros) * 100);
    const host = hostTimes();
    const hostTotal = host.total - this.#lastHost.total;
    const hostCpu = hostTotal > 0 ? round1((1 - (host.idle - this.#lastHost.idle) / hostTotal) * 100) : 0;
    this.#lastCpu = cpu;
    this.#lastAt = now;
    this.#lastHost = host;
    const first = this.#first;
    this.#first = false;
    return {
      hostname: os.hostname(),
      pid: process.pid,
      kernel_cpu: kernelCpu,
      kernel_memory: process.memoryUsage.rss(),
      ...(first || hostCpu === 0 ? {} : { host_cpu_percent: hostCpu }),
      cpu_count: os.cpus().length,
      host_virtual_memory: virtualMemory(),
    };
  }
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

function hostTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const t = cpu.times;
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  return { idle, total };
}

/**
 * psutil's `virtual_memory()` on Linux, from /proc/meminfo (in bytes): `used` is total − free −
 * buffers − cached, `percent` the share not available. Elsewhere total, available and free only.
 */
function virtualMemory(): Record<string, number> {
  const total = os.totalmem();
  let info: Map<string, number>;
  try {
    info = new Map(
      readFileSync('/proc/meminfo', 'latin1')
        .split('\n')
        .map((line) => /^(\w+):\s+(\d+)/.exec(line))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1] as string, Number(m[2]) * 1024]),
    );
  } catch {
    const free = os.freemem();
    return { total, available: free, percent: round1(((total - free) / total) * 100), free };
  }
  const get = (key: string) => info.get(key) ?? 0;
  const free = get('MemFree');
  const buffers = get('Buffers');
  const cached = get('Cached') + get('SReclaimable');
  const available = info.get('MemAvailable') ?? free + buffers + cached;
  const used = Math.max(0, total - free - buffers - cached);
  return {
    total,
    available,
    percent: round1(((total - available) / total) * 100),
    used,
    free,
    active: get('Active'),
    inactive: get('Inactive'),
    buffers,
    cached,
    shared: get('Shmem'),
    slab: get('Slab'),
  };
}
