import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as nodePath from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../testing/temp.js';
import {
  FileSignatureStore,
  FileSystemStore,
  removeOrphanTempsOf,
  sweepOrphanTemps,
  tempPathFor,
  writeFileAtomic,
} from '../src/index.js';

/**
 * Temp files of atomic saves: a killed server leaves them next to the file; the next save of the
 * file and the start-up sweep remove exactly those whose writer is gone, and nothing else.
 */

/** A pid that existed and is gone: a child that ran and was reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(String(child.stdout));
}

/** The start-time tag nbserve writes for a live pid (Linux clock ticks since boot, base 36). */
function startTag(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]).toString(36);
}

let dir: string;

beforeEach(async () => {
  dir = await makeTempDir('nbserve-temps-');
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function put(name: string, text = 'debris'): Promise<void> {
  await fs.mkdir(nodePath.dirname(nodePath.join(dir, name)), { recursive: true });
  await fs.writeFile(nodePath.join(dir, name), text);
}

async function names(sub = ''): Promise<string[]> {
  return (await fs.readdir(nodePath.join(dir, sub))).sort();
}

describe('nbserve temp files', () => {
  it('are named after the target, the writer pid and its start time, and stay under NAME_MAX', () => {
    const temp = nodePath.basename(tempPathFor(nodePath.join(dir, 'nb.ipynb')));
    expect(temp).toMatch(new RegExp(`^\\.~nb\\.ipynb\\.nbserve-${process.pid}-[0-9a-z]+-[0-9a-f]{8}\\.tmp$`));
    const long = `${'é'.repeat(120)}.ipynb`; // 246 bytes: the name itself is replaced by a digest
    const longTemp = nodePath.basename(tempPathFor(nodePath.join(dir, long)));
    expect(Buffer.byteLength(longTemp)).toBeLessThan(120);
    expect(nodePath.dirname(tempPathFor(nodePath.join(dir, 'a', 'b.txt')))).toBe(nodePath.join(dir, 'a'));
  });

  it('a save removes the file’s own orphans only; live writers, other files and look-alikes stay', async () => {
    const dead = deadPid();
    const parent = process.ppid; // alive, and not this process
    const orphans = [
      `.~nb.ipynb.nbserve-${dead}-0-deadbeef.tmp`,
      `.~nb.ipynb.nbserve-${dead}-${startTag(process.pid)}-0badf00d.tmp`,
      // the pid lives, but it is another process than the writer (pid reused after a reboot)
      `.~nb.ipynb.nbserve-${parent}-zzzzz-12345678.tmp`,
    ];
    const kept = [
      `.~nb.ipynb.nbserve-${parent}-${startTag(parent)}-cafef00d.tmp`, // a live server's save in progress
      nodePath.basename(tempPathFor(nodePath.join(dir, 'nb.ipynb'))), // one of ours in progress
      `.~other.ipynb.nbserve-${dead}-0-deadbeef.tmp`, // another file's orphan: the sweep's job
      '.~nb.ipynb.0123456789ab.tmp', // the old naming, or a user's file
      `nb.ipynb.nbserve-${dead}-0-deadbeef.tmp`,
      `.~nb.ipynb.nbserve-${dead}-0-deadbeef.tmp.bak`,
      `.~nb.ipynb.nbserve-${dead}-0-DEADBEEF.tmp`,
      `.~nb.ipynb.nbserve-${dead}-0-deadbee.tmp`,
      `.~nb.ipynb.nbserve-x${dead}-0-deadbeef.tmp`,
      '.~nb.ipynb',
    ];
    for (const name of [...orphans, ...kept]) await put(name);
    await fs.mkdir(nodePath.join(dir, `.~nb.ipynb.nbserve-${dead}-0-00000000.tmp`)); // a directory
    await fs.symlink('nb.ipynb', nodePath.join(dir, `.~nb.ipynb.nbserve-${dead}-0-11111111.tmp`));

    const store = new FileSystemStore(dir);
    await store.write('nb.ipynb', Buffer.from('{}'));
    const after = await names();
    for (const name of orphans) expect(after).not.toContain(name);
    for (const name of kept) expect(after).toContain(name);
    expect(after).toContain(`.~nb.ipynb.nbserve-${dead}-0-00000000.tmp`);
    expect(after).toContain(`.~nb.ipynb.nbserve-${dead}-0-11111111.tmp`);
    expect(await fs.readFile(nodePath.join(dir, 'nb.ipynb'), 'utf8')).toBe('{}');
  });

  it('the start-up sweep removes every orphan under a tree, checkpoints included, and nothing else', async () => {
    const dead = deadPid();
    await put('nb.ipynb', '{}');
    await put('user.txt', 'mine');
    await put(`.~nb.ipynb.nbserve-${dead}-0-aaaaaaaa.tmp`);
    await put(`sub/.ipynb_checkpoints/.~nb-checkpoint.ipynb.nbserve-${dead}-0-bbbbbbbb.tmp`);
    await put(`sub/deeper/.~data.csv.nbserve-${dead}-0-cccccccc.tmp`);
    await put('sub/.~data.csv.9f8e7d6c5b4a.tmp');
    await put(`sub/.~live.nbserve-${process.ppid}-${startTag(process.ppid)}-dddddddd.tmp`);
    expect(await new FileSystemStore(dir).sweepOrphanTemps()).toBe(3);
    expect(await names()).toEqual(['nb.ipynb', 'sub', 'user.txt']);
    expect(await names('sub')).toEqual([
      '.ipynb_checkpoints',
      '.~data.csv.9f8e7d6c5b4a.tmp',
      `.~live.nbserve-${process.ppid}-${startTag(process.ppid)}-dddddddd.tmp`,
      'deeper',
    ]);
    expect(await names('sub/.ipynb_checkpoints')).toEqual([]);
    expect(await names('sub/deeper')).toEqual([]);
  });

  it('the sweep follows no symlink out of the tree, and a bounded sweep stops', async () => {
    const dead = deadPid();
    const outside = await makeTempDir('nbserve-temps-outside-');
    try {
      const foreign = `.~x.nbserve-${dead}-0-eeeeeeee.tmp`;
      await fs.writeFile(nodePath.join(outside, foreign), 'not ours to touch');
      await fs.symlink(outside, nodePath.join(dir, 'link'));
      expect(await sweepOrphanTemps(dir)).toBe(0);
      expect(await fs.readdir(outside)).toEqual([foreign]);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
    for (let i = 0; i < 5; i++) await put(`d${i}/.~f.nbserve-${dead}-0-${String(i).repeat(8)}.tmp`);
    expect(await sweepOrphanTemps(dir, { maxEntries: 3 })).toBeLessThan(5);
    expect(await sweepOrphanTemps(dir)).toBeGreaterThan(0);
  });

  it('the sweep of a big directory reads it in batches, blocking or not, and misses no orphan', async () => {
    const dead = deadPid();
    const files = Array.from({ length: 2600 }, (_, i) => `f${i}.txt`);
    for (let i = 0; i < files.length; i += 500) await Promise.all(files.slice(i, i + 500).map((f) => put(f, '')));
    for (const blockingReads of [true, false]) {
      for (let i = 0; i < 6; i++) await put(`sub/.~f${i}.nbserve-${dead}-0-${String(i).repeat(8)}.tmp`);
      for (let i = 0; i < 4; i++) await put(`.~f${i}.txt.nbserve-${dead}-0-${String(i).repeat(8)}.tmp`);
      expect(await sweepOrphanTemps(dir, { blockingReads })).toBe(10);
      expect(await names()).toEqual([...files, 'sub'].sort());
      expect(await names('sub')).toEqual([]);
    }
  }, 60_000);

  it('every atomic writer uses the naming and clears its file’s orphans (signatures, writeFileAtomic)', async () => {
    const dead = deadPid();
    const file = nodePath.join(dir, 'nbsignatures.json');
    await put(`.~nbsignatures.json.nbserve-${dead}-0-ffffffff.tmp`);
    await put(`.~config.json.nbserve-${dead}-0-ffffffff.tmp`);
    await new FileSignatureStore(file).add('digest');
    await writeFileAtomic(nodePath.join(dir, 'config.json'), '{}');
    expect(await names()).toEqual(['config.json', 'nbsignatures.json']);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(['digest']);
    // Once per file per process: the directory is not listed again on every write.
    await put(`.~config.json.nbserve-${dead}-0-99999999.tmp`);
    await writeFileAtomic(nodePath.join(dir, 'config.json'), '{"a": 1}');
    expect(await removeOrphanTempsOf(nodePath.join(dir, 'config.json'))).toBe(0);
    expect(await sweepOrphanTemps(dir)).toBe(1);
  });
});
