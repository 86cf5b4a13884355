// needs: kernel
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import { ClusterManager, IpclusterProvider, isNbserveError } from '../src/index.js';

const IPCLUSTER = ['/usr/bin/python3', '-m', 'ipyparallel.cluster'];

async function expectError(p: Promise<unknown>, kind: string, message?: RegExp) {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isNbserveError(error), String(error)).toBe(true);
  if (isNbserveError(error)) {
    expect(error.kind).toBe(kind);
    if (message) expect(error.message).toMatch(message);
  }
}

describe('ClusterManager over a real ipcluster', () => {
  let ipythonDir: string;
  let cwdDir: string;
  let manager: ClusterManager;

  beforeAll(async () => {
    ipythonDir = await makeTempDir('nbserve-ipython-');
    cwdDir = await makeTempDir('nbserve-cwd-');
    for (const name of ['zeta', 'default', 'alpha']) await mkdir(join(ipythonDir, `profile_${name}`));
    await mkdir(join(cwdDir, 'profile_local'));
    await mkdir(join(cwdDir, 'profile_alpha')); // shadowed by the IPython dir's alpha
    await writeFile(join(ipythonDir, 'profile_notadir'), '');
    manager = new ClusterManager({
      provider: new IpclusterProvider({ command: IPCLUSTER, env: { ...process.env, IPYTHONDIR: ipythonDir } }),
      profileSearchDirs: [ipythonDir, cwdDir],
    });
  });

  afterAll(async () => {
    await manager.idle();
    const alpha = await manager.get('alpha').catch(() => undefined);
    if (alpha?.status === 'running') {
      await manager.stop('alpha');
      await manager.idle();
    }
    await rm(ipythonDir, { recursive: true, force: true });
    await rm(cwdDir, { recursive: true, force: true });
  });

  it('discovers profiles from the IPython dir then the working dir, default first', async () => {
    const list = await manager.list();
    expect(list.map((c) => c.profile)).toEqual(['default', 'alpha', 'local', 'zeta']);
    expect(list[1]).toEqual({ profile: 'alpha', profile_dir: join(ipythonDir, 'profile_alpha'), status: 'stopped' });
    expect(list.find((c) => c.profile === 'local')?.profile_dir).toBe(join(cwdDir, 'profile_local'));
  });

  it('refuses unknown profiles, bad names and bad engine counts', async () => {
    await expectError(manager.get('nope'), 'not-found', /profile not found/);
    for (const bad of ['a/b', '..', 'x..y', 'a\\b', '-x', '']) await expectError(manager.get(bad), 'bad-request');
    for (const n of [0, -1, 1.5, Number.NaN])
      await expectError(manager.start('alpha', n), 'bad-request', /positive integer/);
    expect((await manager.get('alpha')).status).toBe('stopped');
  });

  it('stop of a stopped cluster is a conflict', async () => {
    await expectError(manager.stop('zeta'), 'conflict', /cluster not running/);
  });

  it('starts a real cluster, reads its state from the cluster file, and stops it', async () => {
    // Two starts at once: exactly one launches, the other is told the cluster runs.
    const [first, second] = await Promise.allSettled([manager.start('alpha', 1), manager.start('alpha', 1)]);
    const outcomes = [first, second].map((r) => r.status);
    expect(outcomes.sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = [first, second].find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(isNbserveError(rejected.reason) && rejected.reason.kind).toBe('conflict');
    const started = ([first, second].find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<unknown>).value;
    expect(started).toEqual({
      profile: 'alpha',
      profile_dir: join(ipythonDir, 'profile_alpha'),
      status: 'running',
      n: 1,
    });
    expect(await manager.get('alpha')).toMatchObject({ status: 'running', n: 1 });
    await expectError(manager.start('alpha', 1), 'conflict', /already running/);

    // A second manager (a restarted server) sees the cluster too: state lives in ipyparallel's files.
    const other = new ClusterManager({
      provider: new IpclusterProvider({ command: IPCLUSTER }),
      profileSearchDirs: [ipythonDir],
    });
    expect(await other.get('alpha')).toMatchObject({ status: 'running', n: 1 });

    const stopped = await manager.stop('alpha');
    expect(stopped).toEqual({ profile: 'alpha', profile_dir: join(ipythonDir, 'profile_alpha'), status: 'stopped' });
    expect((await manager.get('alpha')).status).toBe('stopped');
    await manager.idle();
    expect(await other.get('alpha')).toEqual(stopped);
  });

  it('a missing ipcluster is a clear 503-kind error with an install hint', async () => {
    const missing = new ClusterManager({
      provider: new IpclusterProvider({ command: [join(cwdDir, 'no-such-python'), '-m', 'ipyparallel.cluster'] }),
      profileSearchDirs: [ipythonDir],
    });
    await expectError(missing.start('zeta', 2), 'unavailable', /apt-get install python3-ipyparallel/);
    await expectError(missing.list(), 'unavailable', /pip install ipyparallel/);
    await expectError(missing.get('zeta'), 'unavailable');
    await expectError(missing.get('nope'), 'not-found');
  });
});
