import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { type Kernel, type KernelMessage, ServerConnection } from '@jupyterlab/services';
import { WebSocket } from 'ws';
import { writeFloodKernelSpec } from '../../../testing/flood-kernelspec.js';
import type { CreateAppOptions } from '../src/app.js';
import { type RunningServer, serve } from '../src/serve.js';

export const TOKEN = 'feedfacefeedfacefeedfacefeedfacefeedfacefeedface';

export interface KernelServerFixture {
  dir: string;
  root: string;
  runtimeDir: string;
  kernelsDir: string;
  server: RunningServer & { app: Awaited<ReturnType<typeof serve>>['app'] };
  baseUrl: string;
  warnings: string[];
  /** fetch against the server with the token. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  settings(options?: { jsonOnly?: boolean }): ServerConnection.ISettings;
  cleanup(): Promise<void>;
}

/** A WebSocket that offers no subprotocol, so the server falls back to the JSON framing. */
export class JsonOnlyWebSocket extends WebSocket {
  constructor(url: string | URL, _protocols?: string | string[]) {
    super(url);
  }
}

/**
 * A real listening nbserve on port 0 with temp dirs, the Debian python3 kernelspec and the flood
 * test kernels (`flood`, `mute`).
 */
export async function startKernelServer(options: Partial<CreateAppOptions> = {}): Promise<KernelServerFixture> {
  const dir = await fs.realpath(await fs.mkdtemp(nodePath.join(os.tmpdir(), 'nbserve-kernels-http-')));
  const root = nodePath.join(dir, 'root');
  const runtimeDir = nodePath.join(dir, 'runtime');
  const kernelsDir = nodePath.join(dir, 'kernels');
  for (const sub of ['root', 'config', 'data']) await fs.mkdir(nodePath.join(dir, sub));
  await writeFloodKernelSpec(kernelsDir, 'flood');
  await writeFloodKernelSpec(kernelsDir, 'mute', { extraArgs: ['--mute'] });
  const warnings: string[] = [];
  const server = await serve({
    root,
    port: 0,
    configDir: nodePath.join(dir, 'config'),
    dataDir: nodePath.join(dir, 'data'),
    runtimeDir,
    token: TOKEN,
    kernelSpecDirs: [kernelsDir, '/usr/share/jupyter/kernels'],
    logger: { info: () => {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    ...options,
  });
  const baseUrl = `http://127.0.0.1:${server.port}${server.app.services.options.baseUrl}`;
  return {
    dir,
    root,
    runtimeDir,
    kernelsDir,
    server,
    baseUrl,
    warnings,
    api(method, path, body, headers = {}) {
      return fetch(`${baseUrl}${path.replace(/^\//, '')}`, {
        method,
        headers: { Authorization: `token ${TOKEN}`, ...headers },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
    },
    settings({ jsonOnly = false } = {}) {
      return ServerConnection.makeSettings({
        baseUrl,
        token: TOKEN,
        WebSocket: (jsonOnly ? JsonOnlyWebSocket : WebSocket) as unknown as typeof globalThis.WebSocket,
        fetch: globalThis.fetch,
      });
    },
    async cleanup() {
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `code` through a `@jupyterlab/services` kernel connection; the reply and every iopub message of the request. */
export async function execute(
  kernel: Kernel.IKernelConnection,
  code: string,
  onStdin?: (msg: KernelMessage.IStdinMessage) => void,
) {
  const future = kernel.requestExecute({ code, allow_stdin: onStdin !== undefined });
  const iopub: KernelMessage.IIOPubMessage[] = [];
  future.onIOPub = (msg) => {
    iopub.push(msg);
  };
  if (onStdin) future.onStdin = onStdin;
  const reply = (await future.done) as KernelMessage.IExecuteReplyMsg;
  return { reply, iopub, of: (type: string) => iopub.filter((m) => m.header.msg_type === type) };
}
