/**
 * The flags for people who run nbserve for others: the audit log and the resource limits
 * (docs/operations.md). Rows of `FLAGS` (flag-table.ts), which checks them.
 */
export const OPERATIONS_FLAGS = [
  {
    name: 'audit-log',
    type: 'string',
    option: 'auditLog',
    valueName: 'file',
    description:
      'append one JSON line per action (code run, file writes, renames, deletes, uploads, logins, kernels, terminals) to this file, or - for stderr',
  },
  {
    name: 'audit-log-code',
    type: 'string',
    option: 'auditLogCode',
    valueName: 'mode',
    description: 'the code of each execute_request in the audit log: text, or hash (its SHA-256)',
  },
  {
    name: 'audit-log-max-bytes',
    type: 'size',
    option: 'auditLogMaxBytes',
    valueName: 'bytes',
    description: 'rotate the audit log before it grows past this size',
  },
  {
    name: 'audit-log-backups',
    type: 'integer',
    option: 'auditLogBackups',
    min: 0,
    max: 1000,
    valueName: 'n',
    description: 'rotated audit log files kept (<file>.1 is the newest)',
  },
  {
    name: 'mem-limit',
    type: 'size',
    option: 'memLimit',
    valueName: 'bytes',
    description: 'memory the server, its kernels and terminals may use, shown by /api/metrics/v1 and the status bar',
  },
  {
    name: 'mem-warning-threshold',
    type: 'number',
    option: 'memWarningThreshold',
    min: 0,
    max: 1,
    valueName: 'fraction',
    description: 'warn once less than this fraction of --mem-limit is left; 0 never warns',
  },
  {
    name: 'track-cpu-percent',
    type: 'boolean',
    option: 'trackCpuPercent',
    description: '/api/metrics/v1 also reports cpu_percent and cpu_count',
  },
  {
    name: 'cpu-limit',
    type: 'number',
    option: 'cpuLimit',
    min: 0,
    max: 100_000,
    valueName: 'cpus',
    description: 'CPUs the server may use, shown as limits.cpu by /api/metrics/v1 (with --track-cpu-percent); 0 none',
  },
] as const;
