import type { BenchContext } from '../lib/context.js';
import { ApiClient } from '../lib/http-client.js';
import { executeToIdle } from '../lib/kernel-client.js';
import { deleteKernel, serverKernelConnection, startKernel } from '../lib/kernels.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { median, percentile } from '../lib/stats.js';
import { WsKernelClient } from '../lib/ws-client.js';
import { ZmqKernelClient } from '../lib/zmq-client.js';

/**
 * The `execute` scenario with the default JSON framing (a client that offers no subprotocol: the
 * classic notebook page, Notebook 6.4 as a gateway client, most scripts). Blocks of 50 alternate
 * with the floor on the same kernel, so load from elsewhere on the machine hits both alike.
 */
export const executeJsonScenario: Scenario = {
  name: 'execute-json',
  group: 'kernels',
  title: 'execute_request round trip for `pass` over the JSON framing (vs direct ZMQ on the same kernel)',
  budgetMs: 300_000,
  async run(ctx: BenchContext) {
    const rounds = ctx.size(8, 2);
    const perRound = ctx.size(50, 25);
    const med: Partial<Record<Subject, number>> = {};
    const p99: Partial<Record<Subject, number>> = {};
    const notes: string[] = [];
    for (const kind of ctx.serverKinds()) {
      const result = await ctx.withServer(kind, async (server) => {
        const api = new ApiClient(server.origin, server.token);
        const model = await startKernel(api, 'python3');
        const ws = await WsKernelClient.connect(server.origin, server.token, model.id, false);
        const floor = await ZmqKernelClient.connect(await serverKernelConnection(server, model.id));
        try {
          if (ws.protocol !== '') throw new Error(`the server chose subprotocol ${ws.protocol}, not the JSON framing`);
          await ws.kernelInfo();
          await floor.kernelInfo();
          for (let i = 0; i < 30; i++) {
            await executeToIdle(ws, 'pass');
            await executeToIdle(floor, 'pass');
          }
          const viaServer: number[] = [];
          const direct: number[] = [];
          for (let r = 0; r < rounds; r++) {
            for (let i = 0; i < perRound; i++) viaServer.push((await executeToIdle(ws, 'pass')).ms);
            for (let i = 0; i < perRound; i++) direct.push((await executeToIdle(floor, 'pass')).ms);
          }
          return { viaServer, direct };
        } finally {
          floor.close();
          ws.close();
          await deleteKernel(api, model.id);
          api.close();
        }
      });
      med[kind] = median(result.viaServer);
      p99[kind] = percentile(result.viaServer, 99);
      const floorMedian = median(result.direct);
      const floorP99 = percentile(result.direct, 99);
      if (med.floor === undefined) {
        med.floor = floorMedian;
        p99.floor = floorP99;
      }
      notes.push(
        `${kind}: ${(med[kind] ?? 0).toFixed(2)} ms vs ${floorMedian.toFixed(2)} ms direct on the same kernel = ` +
          `${((med[kind] ?? 0) / floorMedian).toFixed(2)}x (p99 ${((p99[kind] ?? 0) / floorP99).toFixed(2)}x)`,
      );
      ctx.log(notes[notes.length - 1] as string);
    }
    ctx.record({
      metric: `execute \`pass\` round trip, JSON framing, median of ${rounds * perRound}`,
      unit: 'ms',
      values: med,
      targets: [{ kind: 'ratio', against: 'floor', op: '<=', bound: 1.1, text: '≤1.1x floor' }],
      notes,
    });
    ctx.record({ metric: 'execute `pass` round trip, JSON framing, p99', unit: 'ms', values: p99 });
  },
};
