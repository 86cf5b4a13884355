import type { ExecutionState } from '../protocol/types.js';

/** What `/api/kernels` returns for one kernel. `reason` only when non-empty. */
export interface KernelModel {
  id: string;
  name: string;
  last_activity: string;
  execution_state: ExecutionState;
  connections: number;
  reason?: string;
}

/** The connection file contents (ports, transport and signing key) of a running kernel. */
export interface ConnectionInfo {
  ip: string;
  transport: 'tcp' | 'ipc';
  shell_port: number;
  iopub_port: number;
  stdin_port: number;
  control_port: number;
  hb_port: number;
  key: string;
  signature_scheme: string;
  kernel_name?: string;
}
