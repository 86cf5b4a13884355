// needs: kernel
import { once } from 'node:events';
import { appendFileSync, mkdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDirSync } from '../../../testing/temp.js';
import { readConnectionFile } from '../src/index.js';
import { waitForConnectionFile } from '../src/kernels/connection-file.js';

const dir = makeTempDirSync('nbserve-connfile-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const info = {
  shell_port: 50001,
  iopub_port: 50002,
  stdin_port: 50003,
  control_port: 50004,
  hb_port: 50005,
  ip: '127.0.0.1',
  key: 'a0436f6c-1916d4b6f7d8c97b',
  transport: 'tcp',
  signature_scheme: 'hmac-sha256',
  kernel_name: 'python3',
};

describe('readConnectionFile (polled while a kernel starts)', () => {
  it('is undefined while the file is missing, also under a missing directory', async () => {
    expect(await readConnectionFile(path.join(dir, 'kernel-missing.json'))).toBeUndefined();
    expect(await readConnectionFile(path.join(dir, 'no-such-dir', 'kernel-x.json'))).toBeUndefined();
  });

  it('is undefined while the kernel has written only part of it, then the whole info', async () => {
    const file = path.join(dir, 'kernel-partial.json');
    const text = JSON.stringify(info);
    writeFileSync(file, text.slice(0, 40));
    expect(await readConnectionFile(file)).toBeUndefined();
    writeFileSync(file, text);
    expect(await readConnectionFile(file)).toEqual(info);
  });

  it('is undefined for a path that exists but cannot be read as a file', async () => {
    const file = path.join(dir, 'kernel-dir.json');
    mkdirSync(file);
    expect(await readConnectionFile(file)).toBeUndefined();
  });
});

describe('waitForConnectionFile', () => {
  const never = new Promise<never>(() => {});

  it('resolves once the kernel has written the whole file, in pieces', async () => {
    const file = path.join(dir, 'kernel-later.json');
    const waiting = waitForConnectionFile(file, { timeoutMs: 10_000, exited: never }); // watching from here on
    const text = JSON.stringify(info);
    // The first piece's event reaches our watch of the directory and, in the same turn, the waiter's.
    const ours = watch(dir, { persistent: false });
    const firstPiece = once(ours, 'change');
    writeFileSync(file, text.slice(0, 20));
    await firstPiece;
    ours.close();
    appendFileSync(file, text.slice(20));
    expect(await waiting).toEqual(info);
  });

  it('finds a file that is already there', async () => {
    const file = path.join(dir, 'kernel-present.json');
    writeFileSync(file, JSON.stringify(info));
    expect(await waitForConnectionFile(file, { timeoutMs: 10_000, exited: never })).toEqual(info);
  });

  it('polls when the directory cannot be watched (it does not exist yet)', async () => {
    const sub = path.join(dir, 'later-dir');
    const file = path.join(sub, 'kernel-x.json');
    // the watch of the missing directory fails at once: the waiter polls from here on
    const waiting = waitForConnectionFile(file, { timeoutMs: 10_000, exited: never });
    mkdirSync(sub);
    writeFileSync(file, JSON.stringify(info));
    expect(await waiting).toEqual(info);
  });

  it("says 'exited' when the process dies first and 'timeout' when nothing comes in time", async () => {
    const file = path.join(dir, 'kernel-never.json');
    let exit: () => void = () => {};
    const exited = new Promise<void>((r) => {
      exit = r;
    });
    const waiting = waitForConnectionFile(file, { timeoutMs: 10_000, exited });
    exit();
    expect(await waiting).toBe('exited');
    expect(await waitForConnectionFile(file, { timeoutMs: 100, exited: never })).toBe('timeout');
  });
});
