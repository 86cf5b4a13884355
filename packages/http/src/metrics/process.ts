import { readdirSync, readFileSync } from 'node:fs';
import type { MetricFamily, MetricType } from './exposition.js';

/**
 * The process metrics Node's Prometheus client (prom-client) exports by default, under its names
 * and help texts, so existing Node dashboards work unchanged:
 * https://github.com/siimon/prom-client#default-metrics
 * Read on every scrape; /proc is not disk I/O, it never blocks.
 */

const STARTED_SECONDS = Math.round(Date.now() / 1000 - process.uptime());

function single(name: string, help: string, type: MetricType, value: number): MetricFamily {
  return { name, help, type, samples: [{ name, value }] };
}

/** `VmRSS`, `VmSize` and `VmData` in bytes from /proc/self/status; undefined off Linux. */
function procStatus(): { rss: number; size: number; data: number } | undefined {
  try {
    const text = readFileSync('/proc/self/status', 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN) * 1024;
    return { rss: kb('VmRSS'), size: kb('VmSize'), data: kb('VmData') };
  } catch {
    return undefined;
  }
}

function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length - 1; // minus the descriptor readdir itself holds
  } catch {
    return undefined;
  }
}

let maxFdsCache: number | null | undefined;

function maxFds(): number | undefined {
  if (maxFdsCache === undefined) {
    try {
      const line = readFileSync('/proc/self/limits', 'utf8')
        .split('\n')
        .find((l) => l.startsWith('Max open files'));
      const value = Number(line?.split(/ {2,}/)[1]);
      maxFdsCache = Number.isFinite(value) ? value : null;
    } catch {
      maxFdsCache = null;
    }
  }
  return maxFdsCache ?? undefined;
}

export function processFamilies(): MetricFamily[] {
  const cpu = process.cpuUsage();
  const user = cpu.user / 1e6;
  const system = cpu.system / 1e6;
  const memory = process.memoryUsage();
  const status = procStatus();
  const families: MetricFamily[] = [
    single('process_cpu_user_seconds_total', 'Total user CPU time spent in seconds.', 'counter', user),
    single('process_cpu_system_seconds_total', 'Total system CPU time spent in seconds.', 'counter', system),
    single('process_cpu_seconds_total', 'Total user and system CPU time spent in seconds.', 'counter', user + system),
    single(
      'process_start_time_seconds',
      'Start time of the process since unix epoch in seconds.',
      'gauge',
      STARTED_SECONDS,
    ),
    single('process_resident_memory_bytes', 'Resident memory size in bytes.', 'gauge', status?.rss ?? memory.rss),
  ];
  if (status) {
    families.push(
      single('process_virtual_memory_bytes', 'Virtual memory size in bytes.', 'gauge', status.size),
      single('process_heap_bytes', 'Process heap size in bytes.', 'gauge', status.data),
    );
  }
  const open = openFds();
  if (open !== undefined) families.push(single('process_open_fds', 'Number of open file descriptors.', 'gauge', open));
  const max = maxFds();
  if (max !== undefined)
    families.push(single('process_max_fds', 'Maximum number of open file descriptors.', 'gauge', max));
  families.push(
    single('nodejs_heap_size_total_bytes', 'Process heap size from Node.js in bytes.', 'gauge', memory.heapTotal),
    single('nodejs_heap_size_used_bytes', 'Process heap size used from Node.js in bytes.', 'gauge', memory.heapUsed),
    single('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.', 'gauge', memory.external),
  );
  const [major = '0', minor = '0', patch = '0'] = process.version.slice(1).split('.');
  families.push({
    name: 'nodejs_version_info',
    help: 'Node.js version info.',
    type: 'gauge',
    samples: [{ name: 'nodejs_version_info', labels: { version: process.version, major, minor, patch }, value: 1 }],
  });
  return families;
}
