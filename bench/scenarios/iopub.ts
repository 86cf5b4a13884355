import type { BenchContext } from '../lib/context.js';
import { executeFannedOut, FanOutTimeout } from '../lib/fanout.js';
import { ApiClient } from '../lib/http-client.js';
import type { KernelClient } from '../lib/kernel-client.js';
import { kernelspecArgv, launchDirect } from '../lib/kernels.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import { median } from '../lib/stats.js';
import { WsKernelClient } from '../lib/ws-client.js';
import { ZmqKernelClient } from '../lib/zmq-client.js';
import { openServerKernel } from './kernels.js';

interface Flood {
  label: string;
  kernel: string;
  code: string;
  countType: 'stream' | 'display_data';
  expected: number;
  unit: 'lines/s' | 'msgs/s';
  clients: number;
  /** A small version of `code` run first, to warm up both ends. */
  warmup: string;
  /** Floods per connection (median taken); long ipykernel floods run once. */
  runs: number;
}

interface FloodOutcome {
  rate: number;
  minDelivered: number;
  ms: number;
}

/** A warm-up, then `runs` floods on the same connections; the median run's time, the worst delivery. */
async function floodRuns(clients: KernelClient[], flood: Flood, runs: number): Promise<FloodOutcome> {
  await executeFannedOut(clients, flood.warmup, flood.countType);
  const times: number[] = [];
  let minDelivered = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const result = await executeFannedOut(clients, flood.code, flood.countType);
    times.push(result.ms);
    minDelivered = Math.min(minDelivered, ...result.delivered);
  }
  const ms = median(times);
  return { ms, rate: flood.expected / (ms / 1000), minDelivered };
}

async function floodFloor(ctx: BenchContext, flood: Flood): Promise<FloodOutcome> {
  const kernel = await launchDirect(kernelspecArgv(flood.kernel, ctx.jupyterPath));
  const extra: ZmqKernelClient[] = [];
  try {
    for (let i = 1; i < flood.clients; i++) extra.push(await ZmqKernelClient.connect(kernel.info));
    await kernel.client.kernelInfo();
    for (const client of extra) await client.kernelInfo();
    return await floodRuns([kernel.client, ...extra], flood, flood.runs);
  } finally {
    for (const client of extra) client.close();
    await kernel.stop();
  }
}

/** Runs each flood against the floor and every server; one row per flood for rate, one for delivery. */
async function measureFloods(ctx: BenchContext, floods: Flood[], targets: { jupyterFactor?: number }): Promise<void> {
  for (const flood of floods) {
    const rate: Partial<Record<Subject, number>> = {};
    const delivered: Partial<Record<Subject, number>> = {};
    const notes: string[] = [];
    // one subject failing (a timeout, a dropped connection, a refused request) fails the run, but
    // the others are still measured; errors from withServer already name the server
    const attempt = async (who: Subject, run: () => Promise<FloodOutcome>) => {
      try {
        return await run();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const named = who === 'floor' ? `floor: ${message}` : message;
        const timeout = error instanceof Error && error.cause instanceof FanOutTimeout ? error.cause : error;
        if (timeout instanceof FanOutTimeout) delivered[who] = Math.min(...timeout.delivered);
        // A reference too slow to finish under the time limit is a finding about it (its
        // delivered row shows how far it got), not a failure of the run; nbserve and the floor
        // must finish.
        const referenceTooSlow = timeout instanceof FanOutTimeout && who !== 'nbserve' && who !== 'floor';
        notes.push(
          referenceTooSlow ? `${named} (a reference server too slow under the limit: recorded, not a failure)` : named,
        );
        if (!referenceTooSlow) ctx.fail(flood.label, named);
        return undefined;
      }
    };
    const floor = await attempt('floor', () => floodFloor(ctx, flood));
    if (floor) {
      rate.floor = floor.rate;
      delivered.floor = floor.minDelivered;
      ctx.log(`${flood.label} floor: ${floor.ms.toFixed(0)} ms, ${floor.rate.toFixed(0)} ${flood.unit}`);
    }
    for (const kind of ctx.serverKinds()) {
      const outcome = await attempt(kind, () =>
        ctx.withServer(kind, async (server) => {
          const api = new ApiClient(server.origin, server.token);
          const kernel = await openServerKernel(server, api, flood.kernel);
          const extra: WsKernelClient[] = [];
          try {
            for (let i = 1; i < flood.clients; i++) {
              const client = await WsKernelClient.connect(server.origin, server.token, kernel.id);
              await client.kernelInfo();
              extra.push(client);
            }
            return await floodRuns([kernel.ws, ...extra], flood, flood.runs);
          } finally {
            for (const client of extra) client.close();
            await kernel.close().catch(() => undefined);
            api.close();
          }
        }),
      );
      if (!outcome) continue;
      rate[kind] = outcome.rate;
      delivered[kind] = outcome.minDelivered;
      ctx.log(
        `${flood.label} ${kind}: ${outcome.ms.toFixed(0)} ms, ${outcome.rate.toFixed(0)} ${flood.unit}, fewest delivered to one client ${outcome.minDelivered}/${flood.expected}`,
      );
    }
    ctx.record({
      metric: `${flood.label}: throughput${flood.clients > 1 ? ' per client' : ''}`,
      unit: flood.unit,
      values: rate,
      notes,
      targets: [
        { kind: 'ratio', against: 'floor', op: '>=', bound: 0.8, text: '≥0.8x floor' },
        ...(targets.jupyterFactor
          ? [
              {
                kind: 'ratio' as const,
                against: 'jupyter_server' as const,
                op: '>=' as const,
                bound: targets.jupyterFactor,
                text: `≥${targets.jupyterFactor}x jupyter_server`,
              },
            ]
          : []),
      ],
    });
    ctx.record({
      metric: `${flood.label}: delivered (fewest of ${flood.clients} client${flood.clients > 1 ? 's' : ''})`,
      unit: flood.countType === 'stream' ? 'lines' : 'msgs',
      values: delivered,
      targets: [{ kind: 'exact', expected: flood.expected, text: `all ${flood.expected.toLocaleString('en-US')}` }],
    });
  }
}

/** ipykernel printing lines and emitting display messages, to one WebSocket client. */
export const iopubScenario: Scenario = {
  name: 'iopub',
  group: 'kernels',
  title: 'iopub throughput from ipykernel: 200,000 printed lines; 20,000 display messages',
  budgetMs: 300_000,
  async run(ctx) {
    const lines = ctx.size(200_000, 20_000);
    const displays = ctx.size(20_000, 5_000);
    await measureFloods(
      ctx,
      [
        {
          label: `ipykernel print ${lines.toLocaleString('en-US')} lines`,
          kernel: 'python3',
          code: `for i in range(${lines}): print(i)`,
          warmup: 'for i in range(1000): print(i)',
          countType: 'stream',
          expected: lines,
          unit: 'lines/s',
          clients: 1,
          runs: ctx.size(3, 1),
        },
        {
          label: `ipykernel display ${displays.toLocaleString('en-US')}`,
          kernel: 'python3',
          code: `from IPython.display import display\nfor i in range(${displays}): display(i)`,
          warmup: 'from IPython.display import display\nfor i in range(100): display(i)',
          countType: 'display_data',
          expected: displays,
          unit: 'msgs/s',
          clients: 1,
          runs: 1,
        },
      ],
      {},
    );
  },
};

/** The display flood from ipykernel, fanned out to 10 WebSocket clients of one kernel. */
export const fanoutScenario: Scenario = {
  name: 'fanout',
  group: 'kernels',
  title: 'the ipykernel display flood fanned out to 10 WebSocket clients',
  budgetMs: 300_000,
  async run(ctx) {
    const displays = ctx.size(20_000, 5_000);
    await measureFloods(
      ctx,
      [
        {
          label: `ipykernel display ${displays.toLocaleString('en-US')} to 10 clients`,
          kernel: 'python3',
          code: `from IPython.display import display\nfor i in range(${displays}): display(i)`,
          warmup: 'from IPython.display import display\nfor i in range(100): display(i)',
          countType: 'display_data',
          expected: displays,
          unit: 'msgs/s',
          clients: 10,
          runs: 1,
        },
      ],
      {},
    );
  },
};

export const FLOOD_KERNEL = 'bench-flood';

/** Our Node flood kernel emits as fast as ZeroMQ takes messages: this loads the server, not the kernel. */
export const floodScenario: Scenario = {
  name: 'flood',
  group: 'kernels',
  title: 'iopub flood from a fast test kernel (stream and display), to 1 and to 10 clients',
  budgetMs: 600_000,
  async run(ctx) {
    try {
      kernelspecArgv(FLOOD_KERNEL, ctx.jupyterPath);
    } catch {
      ctx.fail('flood kernel', 'testing/flood-kernelspec.ts not found');
      return;
    }
    const single = ctx.size(30_000, 10_000);
    const fanned = ctx.size(10_000, 2_000);
    const flood = (n: number, clients: number, kind: 'stream' | 'display_data'): Flood => ({
      label: `flood kernel ${kind === 'stream' ? 'stream' : 'display'} ${n.toLocaleString('en-US')}${clients > 1 ? ` to ${clients} clients` : ''}`,
      kernel: FLOOD_KERNEL,
      code: kind === 'stream' ? `flood ${n} 80` : `display ${n}`,
      warmup: kind === 'stream' ? 'flood 1000 80' : 'display 1000',
      countType: kind,
      expected: n,
      unit: 'msgs/s',
      clients,
      runs: ctx.size(5, 1),
    });
    await measureFloods(
      ctx,
      [flood(single, 1, 'stream'), flood(single, 1, 'display_data'), flood(fanned, 10, 'stream')],
      { jupyterFactor: 3 },
    );
  },
};
