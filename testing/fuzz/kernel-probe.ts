import { protocol } from '@nbserve/core';
import { WebSocket } from 'ws';
import { within } from '../wait.js';

/**
 * Runs `code` on a kernel through its channels socket, as any other client would, and returns
 * the reply's status and the `text/plain` result (or stream output). Throws after `timeoutMs`.
 */
export async function executeOnKernel(
  url: string,
  token: string,
  code: string,
  timeoutMs = 30_000,
): Promise<{ status: string; text: string }> {
  const ws = new WebSocket(url, { headers: { authorization: `token ${token}` } });
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    const request = protocol.createMessage(
      'execute_request',
      { code, silent: false, store_history: false },
      { session: 'fz-probe' },
    );
    const reply = new Promise<{ status: string; text: string }>((resolve, reject) => {
      let text = '';
      let status: string | undefined;
      let idle = false;
      // The reply (shell) and the output (iopub) travel separately: done when both are in.
      const settle = () => {
        if (status === undefined || !idle) return;
        resolve({ status, text });
      };
      ws.on('close', () => reject(new Error('socket closed before the reply')));
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const msg = JSON.parse(data.toString()) as {
          channel: string;
          header: { msg_type: string };
          parent_header: { msg_id?: string };
          content: { status?: string; text?: string; data?: Record<string, string>; execution_state?: string };
        };
        if (msg.parent_header.msg_id !== request.header.msg_id) return;
        if (msg.header.msg_type === 'execute_result') text += msg.content.data?.['text/plain'] ?? '';
        if (msg.header.msg_type === 'stream') text += msg.content.text ?? '';
        if (msg.header.msg_type === 'execute_reply') status = msg.content.status ?? '?';
        if (msg.header.msg_type === 'status' && msg.content.execution_state === 'idle') idle = true;
        settle();
      });
      ws.send(JSON.stringify({ ...request, channel: 'shell' }));
    });
    return await within(reply, timeoutMs, 'execute_reply');
  } finally {
    ws.terminate();
  }
}
