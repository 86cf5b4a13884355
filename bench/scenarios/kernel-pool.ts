import type { BenchContext } from '../lib/context.js';
import { ApiClient } from '../lib/http-client.js';
import type { Message } from '../lib/jupyter-message.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import type { ServerHandle } from '../lib/servers.js';
import { addSamples, median } from '../lib/stats.js';
import { WsKernelClient } from '../lib/ws-client.js';

const POOL_FLAGS = ['--kernel-pool', 'python3=1'];

/** Waits until nbserve's python3 pool has a ready kernel (its gauge in /metrics). */
async function poolReady(api: ApiClient, timeoutMs = 120_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const res = await api.request('GET', '/metrics');
    if (res.body.toString('utf8').includes('nbserve_kernel_pool_kernels{type="python3",state="ready"} 1')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the python3 pool had no ready kernel within ${timeoutMs} ms`);
}

/**
 * What a notebook page does when it opens: POST /api/sessions, open the channels WebSocket, send
 * `1+1` at once; the time to its execute_reply.
 */
async function sessionToFirstReply(server: ServerHandle, api: ApiClient, notebook: string): Promise<number> {
  const t0 = performance.now();
  const res = await api.request('POST', '/api/sessions', {
    path: notebook,
    name: notebook,
    type: 'notebook',
    kernel: { name: 'python3' },
  });
  if (res.status !== 201)
    throw new Error(`POST /api/sessions -> ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  const session = JSON.parse(res.body.toString('utf8')) as { id: string; kernel: { id: string } };
  const ws = await WsKernelClient.connect(server.origin, server.token, session.kernel.id);
  let ms: number;
  try {
    let msgId = '';
    const early: Message[] = [];
    const reply = new Promise<Message>((resolve) => {
      const check = (m: Message) => {
        if (m.header.msg_type === 'execute_reply' && m.parent_header.msg_id === msgId) resolve(m);
      };
      ws.onMessage((m) => (msgId ? check(m) : early.push(m)));
      ws.execute('1+1').then((sent) => {
        msgId = sent.header.msg_id;
        for (const m of early.splice(0)) check(m);
      });
    });
    const answer = await reply;
    ms = performance.now() - t0;
    if (answer.content.status !== 'ok') throw new Error(`1+1 -> ${String(answer.content.status)}`);
  } finally {
    ws.close();
  }
  const deleted = await api.request('DELETE', `/api/sessions/${session.id}`);
  if (deleted.status !== 204) throw new Error(`DELETE /api/sessions/${session.id} -> ${deleted.status}`);
  return ms;
}

async function measure(ctx: BenchContext, who: Subject, runs: number): Promise<number[]> {
  const kind = who === 'jupyter_server' ? 'jupyter_server' : 'nbserve';
  const pooled = who === 'nbserve';
  return await ctx.withServer(
    kind,
    async (server) => {
      const api = new ApiClient(server.origin, server.token);
      const times: number[] = [];
      try {
        for (let i = 0; i < runs; i++) {
          // Each open finds a full pool, as a user opening notebooks one after another would.
          if (pooled) await poolReady(api);
          times.push(await sessionToFirstReply(server, api, `pool-bench-${who}-${i}.ipynb`));
        }
      } finally {
        api.close();
      }
      return times;
    },
    pooled ? { args: POOL_FLAGS } : {},
  );
}

/** Session POST to the first execute_reply of `1+1`, with `--kernel-pool python3=1` and without. */
export const kernelPoolScenario: Scenario = {
  name: 'kernel-pool',
  group: 'kernels',
  title: 'session POST to first execute_reply of `1+1`, pooled (--kernel-pool python3=1) vs unpooled',
  budgetMs: 600_000,
  async run(ctx) {
    const runs = ctx.size(5, 2);
    const subjects: Subject[] = [
      'nbserve',
      'nbserve-unpooled',
      ...(ctx.compareJupyter ? ['jupyter_server' as const] : []),
    ];
    const samples: Partial<Record<Subject, number[]>> = {};
    // Round by round, so load from elsewhere on the machine hits every subject alike.
    for (let round = 0; round < 2; round++) {
      for (const who of subjects) addSamples(samples, who, ...(await measure(ctx, who, Math.ceil(runs / 2))));
    }
    const values: Partial<Record<Subject, number>> = {};
    for (const [who, times] of Object.entries(samples) as Array<[Subject, number[]]>) {
      values[who] = median(times);
      ctx.log(`${who}: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
    }
    ctx.record({
      metric: `session POST to first execute_reply of 1+1 (median of ${samples.nbserve?.length ?? 0})`,
      unit: 'ms',
      values,
      targets: [{ kind: 'ratio', against: 'nbserve-unpooled', op: '<=', bound: 0.1, text: 'pooled <= 0.1x unpooled' }],
      notes: [
        'nbserve: --kernel-pool python3=1, the pool full before each open; nbserve-unpooled and jupyter_server start a kernel per session',
      ],
    });
  },
};
