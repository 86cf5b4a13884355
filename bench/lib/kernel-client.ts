import type { Message } from './jupyter-message.js';

/** What a scenario needs from a kernel connection, whether direct ZMQ (floor) or a server's WebSocket. */
export interface KernelClient {
  readonly session: string;
  onMessage(listener: (message: Message) => void): () => void;
  send(channel: 'shell' | 'control', msgType: string, content: Record<string, unknown>): Promise<Message>;
  kernelInfo(timeoutMs?: number): Promise<void>;
  execute(code: string): Promise<Message>;
  close(): void;
}

export interface ExecutionResult {
  /** Request sent to both execute_reply and iopub idle for it received, in ms. */
  ms: number;
  /** iopub messages per msg_type whose parent is this request. */
  counts: Record<string, number>;
  /** Newlines received in `stream` messages. */
  streamLines: number;
  status: string;
}

/** Executes `code` and waits for the reply and the idle status, the way a frontend knows a cell is done. */
export async function executeToIdle(client: KernelClient, code: string, timeoutMs = 120_000): Promise<ExecutionResult> {
  const counts: Record<string, number> = {};
  let streamLines = 0;
  let replied = false;
  let idle = false;
  let status = '';
  let msgId = '';
  const early: Message[] = [];
  const start = performance.now();
  return await new Promise<ExecutionResult>((resolve, reject) => {
    const handle = (m: Message) => {
      if (m.parent_header.msg_id !== msgId) return;
      if (m.channel === 'shell' && m.header.msg_type === 'execute_reply') {
        replied = true;
        status = String(m.content.status);
      } else if (m.channel === 'iopub') {
        const type = m.header.msg_type;
        counts[type] = (counts[type] ?? 0) + 1;
        if (type === 'stream') streamLines += countNewlines(String(m.content.text ?? ''));
        if (type === 'status' && m.content.execution_state === 'idle') idle = true;
      }
      if (replied && idle) {
        clearTimeout(timer);
        off();
        resolve({ ms: performance.now() - start, counts, streamLines, status });
      }
    };
    const off = client.onMessage((m) => (msgId ? handle(m) : early.push(m)));
    const timer = setTimeout(() => {
      off();
      reject(new Error(`execute did not finish within ${timeoutMs} ms (${JSON.stringify(counts)})`));
    }, timeoutMs);
    client.execute(code).then((m) => {
      msgId = m.header.msg_id;
      for (const e of early.splice(0)) handle(e);
    }, reject);
  });
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
