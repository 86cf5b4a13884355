import type { Message } from './jupyter-message.js';
import type { KernelClient } from './kernel-client.js';

export class FanOutTimeout extends Error {
  constructor(
    timeoutMs: number,
    readonly delivered: number[],
  ) {
    super(`did not finish within ${timeoutMs / 1000} s (delivered ${delivered.join(', ')})`);
  }
}

export interface FanOutResult {
  /** Request sent to every client having seen iopub idle (and the sender its execute_reply), ms. */
  ms: number;
  /** Per client: iopub messages of `countType` for this request (stream: lines). */
  delivered: number[];
}

/**
 * `clients[0]` executes `code`; all clients count what they receive for that request. Each
 * client is done at the idle status (iopub is broadcast to every connection of the kernel).
 */
export async function executeFannedOut(
  clients: KernelClient[],
  code: string,
  countType: 'stream' | 'display_data',
  timeoutMs = 120_000,
): Promise<FanOutResult> {
  const sender = clients[0];
  if (!sender) throw new Error('no clients');
  const delivered = clients.map(() => 0);
  const done = clients.map(() => false);
  let replied = false;
  let msgId = '';
  const pending: Array<[number, Message]> = [];
  const start = performance.now();
  return await new Promise<FanOutResult>((resolve, reject) => {
    const offs: Array<() => void> = [];
    const finish = (error?: Error) => {
      clearTimeout(timer);
      for (const off of offs) off();
      if (error) reject(error);
      else resolve({ ms: performance.now() - start, delivered });
    };
    const handle = (i: number, m: Message) => {
      if (m.parent_header.msg_id !== msgId) return;
      const type = m.header.msg_type;
      if (i === 0 && type === 'execute_reply') replied = true;
      if (m.channel === 'iopub') {
        if (type === countType) {
          if (type === 'stream') {
            const text = String(m.content.text ?? '');
            for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1))
              delivered[i] = (delivered[i] ?? 0) + 1;
          } else delivered[i] = (delivered[i] ?? 0) + 1;
        } else if (type === 'status' && m.content.execution_state === 'idle') done[i] = true;
      }
      if (replied && done.every(Boolean)) finish();
    };
    clients.forEach((client, i) => {
      offs.push(client.onMessage((m) => (msgId ? handle(i, m) : pending.push([i, m]))));
    });
    const timer = setTimeout(() => finish(new FanOutTimeout(timeoutMs, [...delivered])), timeoutMs);
    sender.execute(code).then((m) => {
      msgId = m.header.msg_id;
      for (const [i, e] of pending.splice(0)) handle(i, e);
    }, finish);
  });
}
