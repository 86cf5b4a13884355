// needs: kernel
import { afterAll, describe, expect, it } from 'vitest';
import { type CampaignResult, runCampaign } from '../../../testing/fuzz/campaign.js';
import { type FuzzServer, startFuzzServer } from '../../../testing/fuzz/fuzz-server.js';
import { executeOnKernel } from '../../../testing/fuzz/kernel-probe.js';
import { entryForSeed, fuzzSettings, replayCommand } from '../../../testing/fuzz/settings.js';

/**
 * The API fuzzer (docs/fuzzing.md): for each seed, a real listening server over a real temp root
 * gets seeded random and mutated requests to every route of every generation, and random frames
 * on its kernel sockets; the invariants are checked after each step. A failure names the seed, the
 * step and the request, and how to replay it.
 */
const { seeds, requests } = fuzzSettings();

function report(result: CampaignResult): string {
  const failure = result.failure;
  if (!failure) return '';
  return [
    `API fuzzer: seed ${result.seed} failed at step ${failure.step} of ${requests} (served at ${entryForSeed(result.seed).name})`,
    ...failure.problems.map((p) => `  - ${p}`),
    'The request:',
    failure.what,
    `Replay: ${replayCommand(result.seed, requests)}`,
  ].join('\n');
}

describe.each(seeds)('API fuzzer, seed %i', (seed) => {
  let fz: FuzzServer | undefined;
  afterAll(async () => {
    await fz?.close();
  });

  it(`survives ${requests} random requests and socket conversations with every invariant holding`, async () => {
    // The first seed also keeps a python3 kernel running; the others only the quick JavaScript one.
    fz = await startFuzzServer(seed, seed === seeds[0] ? ['javascript', 'python3'] : ['javascript']);
    const started = Date.now();
    const result = await runCampaign(fz, seed, requests);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `API fuzzer seed ${seed}: ${result.steps} steps (${result.http} HTTP, ${result.sockets} WebSocket) in ${seconds} s; statuses ${JSON.stringify(result.statuses)}`,
    );
    expect(result.failure, report(result)).toBeUndefined();

    // Other clients' kernels still run code.
    for (const [id, name] of fz.sentinelKernels) {
      const code = name === 'python3' ? 'print(6 * 7)' : '6 * 7';
      const reply = await executeOnKernel(fz.server.wsUrl(`api/kernels/${id}/channels`), fz.server.token, code);
      expect(reply, `sentinel ${name} kernel after seed ${seed}; replay: ${replayCommand(seed, requests)}`).toEqual({
        status: 'ok',
        text: expect.stringContaining('42'),
      });
    }
    // Nothing the server logged carries the token.
    expect(fz.server.logger.lines.filter((line) => line.includes(fz?.server.token ?? '?'))).toEqual([]);
  }, 300_000);
});
