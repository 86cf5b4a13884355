import { type Kernel, protocol } from '@nbserve/core';
import type { Hono } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import { parseWith } from '../../validate.js';
import { kernelIdParam } from './kernels.js';

/** How long a kernel gets to answer `usage_request`, as in jupyter-resource-usage. */
export const USAGE_TIMEOUT_MS = 10_000;

const ReportQuery = v.object({
  kernels: v.optional(v.picklist(['0', '1'], (i) => `kernels must be 0 or 1, not ${JSON.stringify(i.input)}`)),
});

/**
 * jupyter-resource-usage's routes, so its JupyterLab status bar and kernel usage panel work
 * unchanged (https://github.com/jupyter-server/jupyter-resource-usage): `GET /api/metrics/v1`
 * (memory, with `--track-cpu-percent` CPU, of the server, its kernels and terminals) and
 * `GET /api/metrics/v1/kernel_usage/get_usage/<kernel_id>`, the kernel's own `usage_reply`
 * to a `usage_request` on the control channel (ipykernel 6.11 and later, nbserve's JavaScript
 * kernel), plus `kernel_id`; `{content: {reason: 'timeout', timeout_ms}, kernel_id}` when it does not answer.
 * nbserve's pages ask `GET /api/metrics/v1?kernels=1`, which adds each kernel's memory and CPU
 * read from /proc: asking the kernels every few seconds would keep them (and the server) active.
 */
export function registerResourceUsageRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api/metrics/v1', (c) => {
    const query = parseWith(ReportQuery, c.req.query(), 'query');
    const { resources } = c.get('services').metrics;
    c.header('Cache-Control', 'no-store');
    return c.json(
      query.kernels === '1' ? { ...resources.report(), kernels: resources.kernelRows() } : resources.report(),
    );
  });

  app.get('/api/metrics/v1/kernel_usage/get_usage/:kernel_id', async (c) => {
    const id = kernelIdParam(c);
    const kernel = c.get('services').kernels.get(id);
    const reply = await askUsage(kernel);
    c.header('Cache-Control', 'no-store');
    if (!reply) {
      return c.json({ content: { reason: 'timeout', timeout_ms: USAGE_TIMEOUT_MS }, kernel_id: id });
    }
    return c.json(usageMessage(reply, id));
  });
}

/**
 * Sends `usage_request` on a client of its own (as upstream does with a kernel client), which
 * holds it until a starting kernel is ready; the `usage_reply`, or `undefined` after the timeout.
 */
async function askUsage(kernel: Kernel): Promise<protocol.JupyterMessage | undefined> {
  const client = kernel.createClient();
  const request = protocol.createMessage('usage_request', {}, { session: kernel.session });
  try {
    return await new Promise<protocol.JupyterMessage | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), USAGE_TIMEOUT_MS);
      client.onMessage = (channel, raw) => {
        if (channel !== 'control') return;
        let message: protocol.JupyterMessage;
        try {
          message = protocol.fromRaw(raw);
        } catch {
          return; // not JSON: not the reply
        }
        if (message.parent_header.msg_id !== request.header.msg_id || message.header.msg_type !== 'usage_reply') return;
        clearTimeout(timer);
        resolve(message);
      };
      client.send('control', protocol.toRaw(request));
    });
  } finally {
    client.close();
  }
}

/** The reply as jupyter_client hands it over (`msg_id`, `msg_type` beside the header), as upstream sends it. */
function usageMessage(reply: protocol.JupyterMessage, kernelId: string) {
  const content = reply.content as Record<string, unknown>;
  return {
    header: reply.header,
    msg_id: reply.header.msg_id,
    msg_type: reply.header.msg_type,
    parent_header: reply.parent_header,
    metadata: reply.metadata,
    // jupyter-resource-usage's `show_host_usage`, on by default: the panel shows the host's numbers.
    content: { ...content, host_usage_flag: true },
    buffers: [],
    kernel_id: kernelId,
  };
}
