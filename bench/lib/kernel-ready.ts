import { readFileSync } from 'node:fs';
import type { ApiClient } from './http-client.js';
import type { ServerHandle } from './servers.js';
import { WsKernelClient } from './ws-client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Attempts per kernel, as JupyterLab's kernel connection (`_reconnectLimit` 7). */
const MAX_ATTEMPTS = 7;

/**
 * The server's log lines about one kernel, and its warnings and tracebacks around them (kernels'
 * own start-up noise left out): what a failure message needs to say why.
 */
export function serverLogAbout(server: ServerHandle, kernelId: string, maxLines = 8): string {
  let text: string;
  try {
    text = readFileSync(server.logFile, 'utf8');
  } catch {
    return '(no server log)';
  }
  const lines = text
    .split('\n')
    .filter((l) => l.includes(kernelId) || /^\[[WE] |Traceback|Error:|Restarter/.test(l.trim()));
  return lines.slice(-maxLines).join(' | ').slice(0, 1500) || '(nothing about it)';
}

/** Polls `GET /api/kernels/{id}` until the kernel is no longer `starting`; returns its state. */
export async function waitUntilStarted(api: ApiClient, id: string, timeoutMs: number): Promise<string> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const res = await api.request('GET', `/api/kernels/${id}`);
    if (res.status !== 200) throw new Error(`GET /api/kernels/${id} -> ${res.status}`);
    const state = String((JSON.parse(res.body.toString('utf8')) as { execution_state?: string }).execution_state);
    if (state !== 'starting' || performance.now() > deadline) return state;
    await sleep(250);
  }
}

/**
 * Opens a kernel's channels WebSocket and waits for one kernel_info_reply, as JupyterLab does on
 * every (re)connect. When the server closes the socket first, connects again once the kernel
 * answers (JupyterLab reconnects with back-off; waiting for the REST model to leave `starting`
 * stands in for that). jupyter_server 1.23 does close it when a kernel takes longer than its
 * `kernel_info_timeout` (60 s) to answer: its handler holds the upgrade until a first
 * kernel_info_reply or that timeout, then, in `open()`, "nudges" the kernel with kernel_info
 * requests and waits for a reply and an iopub message with the same timeout; `open()` failing with
 * TimeoutError makes tornado abort the connection without a close frame. Returns the reconnects.
 */
export async function openUntilKernelInfo(
  server: ServerHandle,
  api: ApiClient,
  id: string,
  log: (line: string) => void,
  postedAt = performance.now(),
): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const ws = await WsKernelClient.connect(server.origin, server.token, id);
    try {
      // one request per connection, as JupyterLab sends (see kernelInfoOnce)
      await ws.kernelInfoOnce(180_000);
      return attempt - 1;
    } catch (error) {
      const why = `${error instanceof Error ? error.message : String(error)}, ${((performance.now() - postedAt) / 1000).toFixed(1)} s after the POST (attempt ${attempt}); server log: ${serverLogAbout(server, id)}`;
      if (ws.isOpen || attempt === MAX_ATTEMPTS) throw new Error(`kernel ${id}: ${why}`);
      log(`${server.kind}: kernel ${id}: ${why}; reconnecting once the kernel has answered`);
      const state = await waitUntilStarted(api, id, 180_000);
      log(
        `${server.kind}: kernel ${id} is ${state} ${((performance.now() - postedAt) / 1000).toFixed(1)} s after the POST`,
      );
    } finally {
      ws.close();
    }
  }
}
