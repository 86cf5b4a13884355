import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir } from '../../../testing/temp.js';
import { AuditLog, isNbserveError } from '../src/index.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(() => removeDir(dir));

/** Every line of the log and its rotated files, oldest first, each parsed (a torn line fails here). */
async function readAll(file: string, backups: number): Promise<Record<string, unknown>[]> {
  const files = [...Array.from({ length: backups }, (_, i) => `${file}.${backups - i}`), file];
  const lines: Record<string, unknown>[] = [];
  for (const name of files) {
    const text = await fs.readFile(name, 'utf8').catch(() => '');
    if (text === '') continue;
    expect(text.endsWith('\n'), name).toBe(true);
    for (const line of text.slice(0, -1).split('\n')) lines.push(JSON.parse(line) as Record<string, unknown>);
  }
  return lines;
}

describe('AuditLog', () => {
  it('appends one JSON object a line, time first, to a file that already had lines', async () => {
    const file = path.join(dir, 'audit.log');
    await fs.writeFile(file, '{"time":"before","event":"x"}\n');
    const log = new AuditLog({ path: file, maxBytes: 0, backups: 5, onError: () => {}, now: () => new Date(0) });
    log.write({ event: 'contents.save', path: 'a b.ipynb', size: 12 });
    // Flushed as it happens: readable before close.
    expect(await fs.readFile(file, 'utf8')).toBe(
      '{"time":"before","event":"x"}\n{"time":"1970-01-01T00:00:00.000Z","event":"contents.save","path":"a b.ipynb","size":12}\n',
    );
    log.close();
  });

  it('rotates by size under 20 concurrent producers without losing or tearing a line', async () => {
    const file = path.join(dir, 'audit.log');
    // about 45 rotations (each renames every backup along: more of them cost seconds, not coverage)
    const backups = 100;
    const maxBytes = 16_384;
    const log = new AuditLog({ path: file, maxBytes, backups, onError: (m) => expect.fail(m) });
    const producers = 20;
    const perProducer = 250;
    await Promise.all(
      Array.from({ length: producers }, async (_, p) => {
        for (let i = 0; i < perProducer; i++) {
          // Lines of varied length, some with multi-byte text, interleaved across producers.
          log.write({
            event: 'kernel.execute',
            producer: p,
            seq: i,
            code: `print("ü${'x'.repeat((p * 7 + i) % 90)}")`,
          });
          if (i % 3 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
      }),
    );
    log.close();
    const lines = await readAll(file, backups);
    expect(lines).toHaveLength(producers * perProducer);
    for (let p = 0; p < producers; p++) {
      const seqs = lines.filter((line) => line.producer === p).map((line) => line.seq);
      expect(seqs).toEqual(Array.from({ length: perProducer }, (_, i) => i));
    }
    const names = (await fs.readdir(dir)).filter((name) => name.startsWith('audit.log'));
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) expect((await fs.stat(path.join(dir, name))).size).toBeLessThanOrEqual(maxBytes);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
  });

  it('keeps only `backups` rotated files, the newest lines in the live file', async () => {
    const file = path.join(dir, 'audit.log');
    const log = new AuditLog({ path: file, maxBytes: 200, backups: 2, onError: () => {} });
    for (let i = 0; i < 100; i++) log.write({ event: 'login', seq: i });
    log.close();
    expect((await fs.readdir(dir)).sort()).toEqual(['audit.log', 'audit.log.1', 'audit.log.2']);
    const lines = await readAll(file, 2);
    expect(lines.at(-1)?.seq).toBe(99);
    // Consecutive: nothing lost between the kept files.
    const seqs = lines.map((line) => line.seq as number);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => (seqs[0] as number) + i));
  });

  it('an unwritable path is a clear error at once', () => {
    const notADir = path.join(dir, 'file');
    return fs.writeFile(notADir, '').then(() => {
      let caught: unknown;
      try {
        new AuditLog({ path: path.join(notADir, 'audit.log'), maxBytes: 0, backups: 5, onError: () => {} });
      } catch (error) {
        caught = error;
      }
      expect(isNbserveError(caught)).toBe(true);
      expect((caught as Error).message).toBe(
        `Cannot open the audit log ${path.join(notADir, 'audit.log')} for writing (ENOTDIR)`,
      );
    });
  });

  it('a full disk is reported once, and writing goes on', () => {
    const errors: string[] = [];
    const log = new AuditLog({ path: '/dev/full', maxBytes: 100, backups: 5, onError: (m) => errors.push(m) });
    for (let i = 0; i < 50; i++) log.write({ event: 'contents.save', path: 'x', size: i });
    log.close();
    expect(errors).toEqual(['Audit log /dev/full: lines are being lost (ENOSPC)']);
  });
});
