import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO } from './cli-helpers.js';

const run = promisify(execFile);
const MODULE = path.join(REPO, 'packages/cli/src/young-generation.ts');

/**
 * A child process that loads the bin's young-generation module, then keeps allocating objects
 * that survive several scavenges (what a burst of kernel starts does) and prints the size V8
 * gave its young generation.
 */
async function newSpaceAfterBurst(env: NodeJS.ProcessEnv): Promise<number> {
  const script = `
    await import(${JSON.stringify(MODULE)});
    const v8 = await import('node:v8');
    const keep = [];
    for (let round = 0; round < 60; round++) {
      const batch = [];
      for (let i = 0; i < 20000; i++) batch.push({ i, s: 'x' + i, a: [i] });
      keep.push(batch);
      if (keep.length > 8) keep.shift();
    }
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(space.space_size);
  `;
  const { stdout } = await run(
    process.execPath,
    ['--conditions=@nbserve/source', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: REPO, env: { ...process.env, ...env }, timeout: 120_000 },
  );
  return Number(stdout.trim());
}

describe('the bin keeps V8 young generation at its initial size', () => {
  it('does not let a burst of surviving objects grow it; NBSERVE_YOUNG_GENERATION=grow does', async () => {
    const [bounded, grown] = await Promise.all([
      newSpaceAfterBurst({}),
      newSpaceAfterBurst({ NBSERVE_YOUNG_GENERATION: 'grow' }),
    ]);
    const MiB = 1024 * 1024;
    expect(bounded).toBeGreaterThan(0);
    expect(bounded).toBeLessThanOrEqual(4 * MiB);
    expect(grown).toBeGreaterThan(8 * MiB);
  }, 180_000);
});
