import type { BenchContext } from '../lib/context.js';
import { ApiClient } from '../lib/http-client.js';
import { executeToIdle } from '../lib/kernel-client.js';
import { deleteKernel, serverKernelConnection, startKernel } from '../lib/kernels.js';
import { formatPaired, pairedRatio, permutations } from '../lib/paired.js';
import { cpuTimeMs } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { median, percentile } from '../lib/stats.js';
import { WsKernelClient } from '../lib/ws-client.js';
import { ZmqKernelClient } from '../lib/zmq-client.js';

/**
 * The `execute` scenario with the default JSON framing (a client that offers no subprotocol: the
 * classic notebook page, Notebook 6.4 as a gateway client, most scripts). A JSON client, a v1
 * client and the floor (a direct ZeroMQ client) share one kernel. Each round runs a block of
 * `perBlock` round trips on each of them, in an order rotating through all six permutations; the
 * figure judged is the median over rounds of the JSON block's median over the floor block's median
 * in the same round (paired, so load from elsewhere on the machine cancels), with a
 * distribution-free 95 % confidence interval. The server's CPU time per round trip is less
 * sensitive to that load.
 */
export const executeJsonScenario: Scenario = {
  name: 'execute-json',
  group: 'kernels',
  title: 'execute_request round trip for `pass` over the JSON framing (vs v1 and direct ZMQ on the same kernel)',
  budgetMs: 400_000,
  async run(ctx: BenchContext) {
    const rounds = ctx.size(42, 6);
    const perBlock = ctx.size(20, 10);
    const med: Partial<Record<Subject, number>> = {};
    const p99: Partial<Record<Subject, number>> = {};
    const cpu: Partial<Record<Subject, number>> = {};
    const paired: Partial<Record<Subject, number>> = {};
    const notes: string[] = [];
    const pairedNotes: string[] = [];
    for (const kind of ctx.serverKinds()) {
      const result = await ctx.withServer(kind, async (server) => {
        const api = new ApiClient(server.origin, server.token);
        const model = await startKernel(api, 'python3');
        const json = await WsKernelClient.connect(server.origin, server.token, model.id, false);
        const v1 = await WsKernelClient.connect(server.origin, server.token, model.id, true);
        const floor = await ZmqKernelClient.connect(await serverKernelConnection(server, model.id));
        try {
          if (json.protocol !== '')
            throw new Error(`the server chose subprotocol ${json.protocol}, not the JSON framing`);
          const clients = { json, v1, floor };
          for (const client of [json, v1, floor]) await client.kernelInfo();
          for (let i = 0; i < 30; i++) for (const client of [json, v1, floor]) await executeToIdle(client, 'pass');
          const blocks = { json: [] as number[][], v1: [] as number[][], floor: [] as number[][] };
          const cpuMs = { json: 0, v1: 0 };
          const orders = permutations(['json', 'v1', 'floor'] as const);
          for (let r = 0; r < rounds; r++) {
            for (const name of orders[r % orders.length] ?? []) {
              const block: number[] = [];
              const cpu0 = cpuTimeMs(server.pid);
              for (let i = 0; i < perBlock; i++) block.push((await executeToIdle(clients[name], 'pass')).ms);
              if (name !== 'floor') cpuMs[name] += cpuTimeMs(server.pid) - cpu0;
              blocks[name].push(block);
            }
          }
          const count = rounds * perBlock;
          return {
            blocks,
            cpuUs: { json: (1000 * cpuMs.json) / count, v1: (1000 * cpuMs.v1) / count },
            v1Protocol: v1.protocol,
          };
        } finally {
          floor.close();
          json.close();
          v1.close();
          await deleteKernel(api, model.id);
          api.close();
        }
      });
      const { blocks } = result;
      const times = { json: blocks.json.flat(), v1: blocks.v1.flat(), floor: blocks.floor.flat() };
      const jsonRatio = pairedRatio(blocks.json, blocks.floor);
      const v1Ratio = pairedRatio(blocks.v1, blocks.floor);
      paired[kind] = jsonRatio.median;
      med[kind] = median(times.json);
      p99[kind] = percentile(times.json, 99);
      cpu[kind] = result.cpuUs.json / 1000;
      const floorMedian = median(times.floor);
      const floorP99 = percentile(times.floor, 99);
      if (med.floor === undefined) {
        med.floor = floorMedian;
        p99.floor = floorP99;
      }
      const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
      const v1Name = result.v1Protocol ? 'v1' : 'second JSON client';
      pairedNotes.push(`${kind}: JSON ${formatPaired(jsonRatio)}; ${v1Name} ${formatPaired(v1Ratio)}`);
      notes.push(
        `${kind}: JSON ${median(times.json).toFixed(2)} ms, floor ${floorMedian.toFixed(2)} ms on the same kernel ` +
          `(pooled medians ${ratio(median(times.json), floorMedian)}, p99 ${ratio(percentile(times.json, 99), floorP99)}); ${v1Name} ${median(times.v1).toFixed(2)} ms; ` +
          `server CPU per round trip ${result.cpuUs.json.toFixed(0)} µs JSON, ${result.cpuUs.v1.toFixed(0)} µs ${result.v1Protocol ? 'v1' : 'second'}`,
      );
      ctx.log(`${notes[notes.length - 1] as string}; paired: ${pairedNotes[pairedNotes.length - 1] as string}`);
    }
    ctx.record({
      metric: `execute \`pass\`, JSON framing / floor: median of ${rounds} paired rounds`,
      unit: 'x',
      values: paired,
      targets: [{ kind: 'at most', bound: 1.1, text: '≤1.1x floor' }],
      notes: [
        `each round: a block of ${perBlock} round trips on the JSON client, the v1 client and the floor (one kernel, order rotating through all 6 permutations); a round's ratio = JSON block median / floor block median`,
        ...pairedNotes,
      ],
    });
    ctx.record({
      metric: `execute \`pass\` round trip, JSON framing, median of ${rounds * perBlock}`,
      unit: 'ms',
      values: med,
      notes,
    });
    ctx.record({ metric: 'execute `pass` round trip, JSON framing, p99', unit: 'ms', values: p99 });
    ctx.record({
      metric: 'server CPU time per JSON-framed `pass` round trip',
      unit: 'ms',
      values: cpu,
      notes: ['user + system time of the server process (/proc, 10 ms ticks) over the JSON blocks / their round trips'],
    });
  },
};
