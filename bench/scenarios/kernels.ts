import { ensureCliBundle, nbserveBinNote } from '../lib/cli-bundle.js';
import type { BenchContext } from '../lib/context.js';
import { ApiClient } from '../lib/http-client.js';
import { executeToIdle } from '../lib/kernel-client.js';
import { openUntilKernelInfo } from '../lib/kernel-ready.js';
import {
  type DirectKernel,
  deleteKernel,
  kernelspecArgv,
  launchDirect,
  serverKernelConnection,
  startKernel,
} from '../lib/kernels.js';
import { rss } from '../lib/processes.js';
import type { Subject } from '../lib/report.js';
import type { Scenario } from '../lib/scenario.js';
import type { ServerHandle } from '../lib/servers.js';
import { addSamples, median, percentile } from '../lib/stats.js';
import { WsKernelClient } from '../lib/ws-client.js';
import { ZmqKernelClient } from '../lib/zmq-client.js';

const MB = 1e6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A kernel started through the server's REST API and ready on its channels WebSocket. */
export async function openServerKernel(server: ServerHandle, api: ApiClient, name: string) {
  const model = await startKernel(api, name);
  const ws = await WsKernelClient.connect(server.origin, server.token, model.id);
  await ws.kernelInfo();
  return {
    id: model.id,
    ws,
    close: async () => {
      ws.close();
      await deleteKernel(api, model.id);
    },
  };
}

async function floorStart(ctx: BenchContext, runs: number): Promise<number[]> {
  const argv = kernelspecArgv('python3', ctx.jupyterPath);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const kernel = await launchDirect(argv);
    try {
      await kernel.client.kernelInfo();
      times.push(performance.now() - t0);
    } finally {
      await kernel.stop();
    }
  }
  return times;
}

/** POST /api/kernels, open the channels WebSocket, until the first kernel_info_reply. */
export const kernelStartScenario: Scenario = {
  name: 'kernel-start',
  group: 'kernels',
  title: 'kernel (ipykernel) start to first kernel_info_reply',
  budgetMs: 240_000,
  async run(ctx) {
    const runs = ctx.size(5, 2);
    const values: Partial<Record<Subject, number>> = {};
    const samples: Partial<Record<Subject, number[]>> = {};
    // alternate floor and servers run by run, so load from elsewhere on the machine hits all alike
    for (let i = 0; i < runs; i++) {
      addSamples(samples, 'floor', ...(await floorStart(ctx, 1)));
      for (const kind of ctx.serverKinds()) {
        const time = await ctx.withServer(kind, async (server) => {
          const api = new ApiClient(server.origin, server.token);
          try {
            const t0 = performance.now();
            const kernel = await openServerKernel(server, api, 'python3');
            const ms = performance.now() - t0;
            await kernel.close();
            return ms;
          } finally {
            api.close();
          }
        });
        addSamples(samples, kind, time);
      }
    }
    for (const [who, times] of Object.entries(samples) as Array<[Subject, number[]]>) {
      values[who] = median(times);
      ctx.log(`${who}: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
    }
    ctx.record({
      metric: `start to kernel_info_reply (median of ${runs})`,
      unit: 'ms',
      values,
      notes: ['floor: spawn ipykernel directly and ask kernel_info over ZMQ'],
    });
  },
};

/** `pass` executed back to back through the WebSocket, interleaved with a ZMQ client on the same kernel. */
export const executeScenario: Scenario = {
  name: 'execute',
  group: 'kernels',
  title: 'execute_request round trip for `pass` (WebSocket vs direct ZMQ on the same kernel)',
  budgetMs: 240_000,
  async run(ctx) {
    const rounds = ctx.size(4, 2);
    const perRound = ctx.size(100, 25);
    const med: Partial<Record<Subject, number>> = {};
    const p99: Partial<Record<Subject, number>> = {};
    const notes: string[] = [];
    for (const kind of ctx.serverKinds()) {
      const result = await ctx.withServer(kind, async (server) => {
        const api = new ApiClient(server.origin, server.token);
        const kernel = await openServerKernel(server, api, 'python3');
        const floor = await ZmqKernelClient.connect(await serverKernelConnection(server, kernel.id));
        try {
          await floor.kernelInfo();
          for (let i = 0; i < 20; i++) {
            await executeToIdle(kernel.ws, 'pass');
            await executeToIdle(floor, 'pass');
          }
          const viaServer: number[] = [];
          const direct: number[] = [];
          for (let r = 0; r < rounds; r++) {
            for (let i = 0; i < perRound; i++) viaServer.push((await executeToIdle(kernel.ws, 'pass')).ms);
            for (let i = 0; i < perRound; i++) direct.push((await executeToIdle(floor, 'pass')).ms);
          }
          return { viaServer, direct, protocol: kernel.ws.protocol || 'json' };
        } finally {
          floor.close();
          await kernel.close();
          api.close();
        }
      });
      med[kind] = median(result.viaServer);
      p99[kind] = percentile(result.viaServer, 99);
      const floorMedian = median(result.direct);
      // the floor row shows the floor on nbserve's own kernel; jupyter_server's is in the notes
      if (med.floor === undefined) {
        med.floor = floorMedian;
        p99.floor = percentile(result.direct, 99);
      }
      notes.push(
        `${kind} (${result.protocol}): ${(med[kind] ?? 0).toFixed(2)} ms vs ${floorMedian.toFixed(2)} ms direct on the same kernel = ${((med[kind] ?? 0) / floorMedian).toFixed(2)}x`,
      );
      ctx.log(notes[notes.length - 1] as string);
    }
    ctx.record({
      metric: `execute \`pass\` round trip, median of ${rounds * perRound}`,
      unit: 'ms',
      values: med,
      targets: [{ kind: 'ratio', against: 'floor', op: '<=', bound: 1.15, text: '≤1.15x floor' }],
      notes,
    });
    ctx.record({ metric: 'execute `pass` round trip, p99', unit: 'ms', values: p99 });
  },
};

/**
 * 20 kernels requested at once (ready = kernel_info over WS), then 20 DELETEs at once; RSS per
 * kernel. nbserve is the shipped bin (what an install runs): the sources through tsx carry tsx's
 * loader and transform caches, which are not nbserve's memory.
 */
export const manyKernelsScenario: Scenario = {
  name: 'many-kernels',
  group: 'kernels',
  title: '20 kernels started at once then deleted at once; server memory per idle kernel',
  budgetMs: 900_000,
  async run(ctx) {
    const count = ctx.size(20, 5);
    const soonMs = ctx.size(3000, 1000);
    const idleMs = ctx.size(15_000, 3000);
    const startAll: Partial<Record<Subject, number>> = {};
    const deleteAll: Partial<Record<Subject, number>> = {};
    const perKernelSoon: Partial<Record<Subject, number>> = {};
    const perKernelIdle: Partial<Record<Subject, number>> = {};
    const argv = kernelspecArgv('python3', ctx.jupyterPath);
    const bundleProblem = ensureCliBundle((line) => ctx.log(line));
    if (bundleProblem) ctx.fail('nbserve (bundled bin)', bundleProblem);
    {
      const t0 = performance.now();
      const kernels = await Promise.all(Array.from({ length: count }, () => launchDirectReady(argv, ctx)));
      const silent = kernels.filter((k) => !k.answered).map((k) => k.kernel);
      if (silent.length === 0) startAll.floor = performance.now() - t0;
      // the floor only sets the scale; a kernel that never answered is reported, the servers still run
      for (const k of silent)
        ctx.fail('floor', `a directly started kernel did not answer kernel_info: ${describeSilent(k)}`);
      const t1 = performance.now();
      await Promise.all(kernels.map((k) => shutdownDirect(k.kernel)));
      if (silent.length === 0) deleteAll.floor = performance.now() - t1;
      ctx.log(`floor: start ${startAll.floor?.toFixed(0)} ms, shutdown ${deleteAll.floor?.toFixed(0)} ms`);
    }
    // Three rounds, each on fresh servers, alternating: the per-kernel figures are medians of three.
    const rounds = ctx.size(3, 1);
    const samples: Record<'started' | 'deleted' | 'soon' | 'idle', Partial<Record<Subject, number[]>>> = {
      started: {},
      deleted: {},
      soon: {},
      idle: {},
    };
    const reconnects: Partial<Record<Subject, number>> = {};
    const rerun: Partial<Record<Subject, number>> = {};
    const references = ctx.serverKinds().filter((k) => k !== 'nbserve');
    for (let round = 0; round < rounds; round++) {
      for (const kind of ctx.serverKinds()) {
        const result = await referenceRetried(kind, ctx, rerun, () =>
          ctx.withServer(
            kind,
            async (server) => {
              const api = new ApiClient(server.origin, server.token);
              try {
                const startReady = async () => {
                  const postedAt = performance.now();
                  const model = await startKernel(api, 'python3');
                  const again = await openUntilKernelInfo(server, api, model.id, (line) => ctx.log(line), postedAt);
                  reconnects[kind] = (reconnects[kind] ?? 0) + again;
                  return model.id;
                };
                // One kernel first, so that one-time costs (loading the ZeroMQ library, its I/O
                // thread, first-use code) are in the baseline of both servers, not divided among the 20.
                const warmUp = await startReady();
                await sleep(1000);
                const before = rss(server.pid);
                const t0 = performance.now();
                const kernels = await Promise.all(Array.from({ length: count }, startReady));
                const started = performance.now() - t0;
                await sleep(soonMs);
                const soon = rss(server.pid);
                await sleep(idleMs - soonMs);
                const idle = rss(server.pid);
                const t1 = performance.now();
                await Promise.all(kernels.map((id) => deleteKernel(api, id)));
                await deleteKernel(api, warmUp);
                const deleted = performance.now() - t1;
                return { started, deleted, soon: (soon - before) / count / MB, idle: (idle - before) / count / MB };
              } finally {
                api.close();
              }
            },
            { compiled: kind === 'nbserve' && !bundleProblem },
          ),
        );
        for (const key of ['started', 'deleted', 'soon', 'idle'] as const) addSamples(samples[key], kind, result[key]);
        ctx.log(
          `${kind} (round ${round + 1}): start ${result.started.toFixed(0)} ms, delete ${result.deleted.toFixed(0)} ms, RSS per idle kernel ${result.soon.toFixed(2)} MB after ${soonMs / 1000} s, ${result.idle.toFixed(2)} MB after ${idleMs / 1000} s`,
        );
      }
    }
    for (const kind of ctx.serverKinds()) {
      startAll[kind] = median(samples.started[kind] ?? []);
      deleteAll[kind] = median(samples.deleted[kind] ?? []);
      perKernelSoon[kind] = median(samples.soon[kind] ?? []);
      perKernelIdle[kind] = median(samples.idle[kind] ?? []);
    }
    const shippedNote = nbserveBinNote(bundleProblem);
    ctx.record({
      metric: `${count} kernels started at once, all ready (median of ${rounds} rounds)`,
      unit: 'ms',
      values: startAll,
      notes: [shippedNote],
    });
    ctx.record({
      metric: `${count} kernels deleted at once`,
      unit: 'ms',
      values: deleteAll,
      notes: ['floor: shutdown_request on control to each kernel, wait for its process to exit'],
    });
    ctx.record({
      metric: `server RSS per idle kernel, ${idleMs / 1000} s after the start (median of ${rounds} rounds)`,
      unit: 'MB',
      values: perKernelIdle,
      targets: [{ kind: 'margin', against: 'jupyter_server', bound: 0.1, text: '≤ jupyter_server + 0.1 MB' }],
      notes: [
        "(RSS with the kernels - RSS with one warm-up kernel) / count; kernels' own processes are not counted",
        'each client sends one kernel_info_request per WebSocket, as JupyterLab does; what a kernel costs: docs/benchmarks.md',
        `a WebSocket the server closed before kernel_info_reply is opened again once the kernel answers (jupyter_server 1.23 aborts it when the kernel takes longer than kernel_info_timeout, 60 s); reconnects over all rounds: ${ctx
          .serverKinds()
          .map((k) => `${k} ${reconnects[k] ?? 0}`)
          .join(', ')}`,
        ...(references.length > 0
          ? [
              `a reference server's failed rounds, run again on a fresh server: ${references.map((k) => `${k} ${rerun[k] ?? 0}`).join(', ')}`,
            ]
          : []),
        `per round: ${ctx
          .serverKinds()
          .map((k) => `${k} ${(samples.idle[k] ?? []).map((v) => v.toFixed(2)).join(', ')} MB`)
          .join('; ')}`,
        shippedNote,
      ],
    });
    ctx.record({
      metric: `server RSS per kernel, ${soonMs / 1000} s after the start (median of ${rounds} rounds)`,
      unit: 'MB',
      values: perKernelSoon,
      notes: ["right after a burst V8's young generation may still be grown (docs/benchmarks.md)"],
    });
  },
};

/**
 * A reference server's round, run again on a fresh server (twice at most) when it fails: with 20
 * kernels starting at once, jupyter_server 1.23 gives a kernel ports that another kernel's ZeroMQ
 * clients may take before it binds them; its restarter then fails ("Address already in use") and
 * it removes the kernel. A failing nbserve round is never run again: it fails the scenario.
 */
async function referenceRetried<T>(
  kind: Subject,
  ctx: { log(line: string): void },
  rerun: Partial<Record<Subject, number>>,
  round: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await round();
    } catch (error) {
      if (kind === 'nbserve' || attempt === 2) throw error;
      rerun[kind] = (rerun[kind] ?? 0) + 1;
      const reason = error instanceof Error ? error.message : String(error);
      ctx.log(`${kind}: the round failed (${reason.slice(0, 300)}); running it again on a fresh server`);
    }
  }
}

/**
 * A direct kernel, started again (at most twice) when it could not bind a port it was given: the
 * ports are free when chosen, but until the kernel binds them any process's outgoing connection
 * may take one (here, the other kernels' ZeroMQ clients reconnecting), as with jupyter_client.
 */
async function launchDirectReady(argv: string[], ctx: { log(line: string): void }) {
  const portTaken = (kernel: DirectKernel) => kernel.process.output().includes('Address already in use');
  for (let attempt = 0; ; attempt++) {
    const kernel = await launchDirect(argv);
    let watching = true;
    const noticed = (async () => {
      while (watching && !portTaken(kernel)) await sleep(200);
    })();
    const answered = await Promise.race([
      kernel.client.kernelInfo(120_000).then(
        () => true,
        () => false,
      ),
      noticed.then(() => false),
    ]);
    watching = false;
    if (answered || attempt === 2 || !portTaken(kernel)) return { kernel, answered };
    ctx.log(`floor: a kernel could not bind its ports (${describeSilent(kernel).slice(0, 120)}); starting it again`);
    await kernel.stop();
  }
}

/** A kernel that never answered: whether its process is alive, its ports, the end of its output. */
function describeSilent(kernel: DirectKernel): string {
  const output = kernel.process
    .output()
    .split('\n')
    .filter((line) => line.trim() && !/[Dd]ebugg|frozen modules|PYDEVD/.test(line))
    .slice(-6)
    .join(' | ');
  const { shell_port, iopub_port, stdin_port, control_port, hb_port } = kernel.info;
  return `process ${kernel.process.exited() ? 'exited' : 'running'}, ports ${[shell_port, iopub_port, stdin_port, control_port, hb_port].join('/')}; output: ${output.slice(0, 800) || '(none)'}`;
}

/** The floor's graceful stop: shutdown_request on control, then wait (at most 5 s) for the process to exit. */
async function shutdownDirect(kernel: DirectKernel): Promise<void> {
  await kernel.client.send('control', 'shutdown_request', { restart: false });
  await Promise.race([kernel.process.exitPromise, new Promise((resolve) => setTimeout(resolve, 5000))]);
  await kernel.stop();
}
