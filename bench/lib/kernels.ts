import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiClient } from './http-client.js';
import { freePort } from './ports.js';
import { type Spawned, spawnGroup, stopGroup } from './processes.js';
import type { ServerHandle } from './servers.js';
import { tempDir } from './workspace.js';
import { type ConnectionInfo, ZmqKernelClient } from './zmq-client.js';

export interface KernelModel {
  id: string;
  name: string;
  execution_state?: string;
}

/** `POST /api/kernels`; anything but 201 (or 200) fails the scenario. */
export async function startKernel(api: ApiClient, name: string): Promise<KernelModel> {
  const res = await api.request('POST', '/api/kernels', { name });
  if (res.status !== 201 && res.status !== 200) {
    throw new Error(`POST /api/kernels {name: ${name}} -> ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  }
  return JSON.parse(res.body.toString('utf8')) as KernelModel;
}

export async function deleteKernel(api: ApiClient, id: string): Promise<void> {
  const res = await api.request('DELETE', `/api/kernels/${id}`);
  if (res.status !== 204 && res.status !== 200) throw new Error(`DELETE /api/kernels/${id} -> ${res.status}`);
}

async function readConnectionFile(path: string, timeoutMs: number): Promise<ConnectionInfo> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (existsSync(path)) {
      try {
        const info = JSON.parse(readFileSync(path, 'utf8')) as ConnectionInfo;
        if (info.shell_port > 0 && info.iopub_port > 0) return info;
      } catch {
        // half-written; try again
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no connection file at ${path} within ${timeoutMs} ms`);
}

/** The connection file the server wrote for kernel `id`, so the floor client can attach to the same kernel. */
export async function serverKernelConnection(server: ServerHandle, id: string): Promise<ConnectionInfo> {
  return await readConnectionFile(join(server.runtimeDir, `kernel-${id}.json`), 10_000);
}

export function kernelspecArgv(name: string, jupyterPath: string): string[] {
  for (const base of [join(jupyterPath, 'kernels'), '/usr/local/share/jupyter/kernels', '/usr/share/jupyter/kernels']) {
    const file = join(base, name, 'kernel.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { argv: string[] }).argv;
  }
  throw new Error(`no kernelspec ${name} in JUPYTER_PATH, /usr/local/share/jupyter or /usr/share/jupyter`);
}

export interface DirectKernel {
  client: ZmqKernelClient;
  process: Spawned;
  info: ConnectionInfo;
  stop(): Promise<void>;
}

/**
 * Launches a kernel with no server at all -- the floor. Like jupyter_client, it writes the
 * connection file first (free ports, a fresh key), which every kernel implementation accepts.
 */
export async function launchDirect(argvTemplate: string[]): Promise<DirectKernel> {
  const dir = tempDir('direct-');
  const connectionFile = join(dir, 'kernel.json');
  const info: ConnectionInfo = {
    ip: '127.0.0.1',
    transport: 'tcp',
    key: randomUUID(),
    signature_scheme: 'hmac-sha256',
    shell_port: await freePort(),
    iopub_port: await freePort(),
    stdin_port: await freePort(),
    control_port: await freePort(),
    hb_port: await freePort(),
  };
  writeFileSync(connectionFile, JSON.stringify(info), { mode: 0o600 });
  const argv = argvTemplate.map((a) => a.replaceAll('{connection_file}', connectionFile));
  const proc = spawnGroup(argv[0] as string, argv.slice(1), {
    cwd: dir,
    env: { ...process.env, JPY_PARENT_PID: String(process.pid), IPYTHONDIR: join(dir, 'ipython') },
  });
  const client = await ZmqKernelClient.connect(info);
  return {
    client,
    process: proc,
    info,
    stop: async () => {
      client.close();
      await stopGroup(proc, 2000);
    },
  };
}
