import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import { type KernelRecord, KernelRecords } from '../src/kernels/kernel-records.js';
import { processStartTime } from '../src/kernels/process-group.js';

/** The records of persisted kernels (`--persist-kernels`) in the runtime dir, on their own. */
const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
afterAll(() => {
  bystander.kill('SIGKILL');
});

function record(kernelId: string, serverPid: number, serverStartTime: string | null): KernelRecord {
  return {
    kernelId,
    specName: 'python3',
    cwd: '/',
    env: {},
    session: 's',
    routingId: 'r',
    clients: [{ identity: 'c', sessionId: 'ws' }],
    lastActivity: new Date(0).toISOString(),
    sessions: [],
    serverPid,
    serverStartTime,
  };
}

describe('KernelRecords', () => {
  it('writes atomically and reads back what it wrote, owned by this server', async () => {
    const dir = await makeTempDir();
    const records = new KernelRecords(dir);
    const { serverPid: _pid, serverStartTime: _start, ...body } = record('k1', 0, null);
    records.write(body);
    expect(readdirSync(dir)).toEqual(['nbserve-kernel-k1.persist.json']); // no temp file left
    const written = JSON.parse(readFileSync(path.join(dir, 'nbserve-kernel-k1.persist.json'), 'utf8'));
    expect(written).toMatchObject({ ...body, serverPid: process.pid });
    records.remove('k1');
    expect(readdirSync(dir)).toEqual([]);
  });

  it("takes the records of gone servers, leaves a live server's alone, removes corrupt ones", async () => {
    const dir = await makeTempDir();
    const pid = bystander.pid as number;
    const live = record('live', pid, processStartTime(pid) ?? null);
    const gone = record('gone', 2 ** 22 + 11, null);
    // a recycled pid: the server's recorded start time is not that of the process now running under it
    const recycled = record('recycled', pid, 'not-that-start');
    for (const r of [live, gone, recycled]) {
      writeFileSync(path.join(dir, `nbserve-kernel-${r.kernelId}.persist.json`), JSON.stringify(r));
    }
    writeFileSync(path.join(dir, 'nbserve-kernel-corrupt.persist.json'), '{"kernelId": ');
    writeFileSync(path.join(dir, 'nbserve-kernel-wrongtype.persist.json'), JSON.stringify({ ...gone, env: 5 }));
    const { records, ids } = new KernelRecords(dir).orphans();
    expect(records.map((r) => r.kernelId).sort()).toEqual(['gone', 'recycled']);
    expect([...ids].sort()).toEqual(['corrupt', 'gone', 'recycled', 'wrongtype']);
    expect(readdirSync(dir).sort()).toEqual([
      'nbserve-kernel-gone.persist.json',
      'nbserve-kernel-live.persist.json',
      'nbserve-kernel-recycled.persist.json',
    ]);
  });
});
