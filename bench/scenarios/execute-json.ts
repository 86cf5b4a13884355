import type { BenchContext } from '../lib/context.js';
import { ApiClient } from '../lib/http-client.js';
import { executeToIdle } from '../lib/kernel-client.js';
import { deleteKernel, serverKernelConnection, startKernel } from '../lib/kernels.js';
import { cpuTimeMs } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { median, percentile } from '../lib/stats.js';
import { WsKernelClient } from '../lib/ws-client.js';
import { ZmqKernelClient } from '../lib/zmq-client.js';

/**
 * The `execute` scenario with the default JSON framing (a client that offers no subprotocol: the
 * classic notebook page, Notebook 6.4 as a gateway client, most scripts). Blocks of 50 on a JSON
 * client, a v1 client and the floor, all on the same kernel, alternate, so load from elsewhere on
 * the machine hits all alike; the server's CPU time per round trip is less sensitive to that load.
 */
export const executeJsonScenario: Scenario = {
  name: 'execute-json',
  group: 'kernels',
  title: 'execute_request round trip for `pass` over the JSON framing (vs v1 and direct ZMQ on the same kernel)',
  budgetMs: 400_000,
  async run(ctx: BenchContext) {
    const rounds = ctx.size(8, 2);
    const perRound = ctx.size(50, 25);
    const med: Partial<Record<Subject, number>> = {};
    const p99: Partial<Record<Subject, number>> = {};
    const cpu: Partial<Record<Subject, number>> = {};
    const notes: string[] = [];
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
          for (const client of [json, v1, floor]) await client.kernelInfo();
          for (let i = 0; i < 30; i++) for (const client of [json, v1, floor]) await executeToIdle(client, 'pass');
          const times = { json: [] as number[], v1: [] as number[], floor: [] as number[] };
          const cpuMs = { json: 0, v1: 0 };
          for (let r = 0; r < rounds; r++) {
            for (const [name, client] of [
              ['json', json],
              ['v1', v1],
              ['floor', floor],
            ] as const) {
              const cpu0 = cpuTimeMs(server.pid);
              for (let i = 0; i < perRound; i++) times[name].push((await executeToIdle(client, 'pass')).ms);
              if (name !== 'floor') cpuMs[name] += cpuTimeMs(server.pid) - cpu0;
            }
          }
          const count = rounds * perRound;
          return {
            times,
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
      const { times } = result;
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
      notes.push(
        `${kind}: JSON ${median(times.json).toFixed(2)} ms = ${ratio(median(times.json), floorMedian)} the floor on the same kernel ` +
          `(p99 ${ratio(percentile(times.json, 99), floorP99)}); ${result.v1Protocol || 'second JSON client'} ${median(times.v1).toFixed(2)} ms = ` +
          `${ratio(median(times.v1), floorMedian)}; server CPU per round trip ${result.cpuUs.json.toFixed(0)} µs JSON, ${result.cpuUs.v1.toFixed(0)} µs ${result.v1Protocol ? 'v1' : 'second'}`,
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
    ctx.record({
      metric: 'server CPU time per JSON-framed `pass` round trip',
      unit: 'ms',
      values: cpu,
      notes: ['user + system time of the server process (/proc, 10 ms ticks) over the JSON blocks / their round trips'],
    });
  },
};
