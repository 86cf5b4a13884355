import { describe, expect, it } from 'vitest';
import { compileGlobs, isHiddenPath } from '../src/contents/hidden.js';
import { incrementName, stripCopySuffix } from '../src/contents/naming.js';
import { normalizeApiPath } from '../src/contents/paths.js';
import {
  decodeBase64Strict,
  encodeBase64Lines,
  guessType,
  isoTimestamp,
  NbserveError,
  parseTimestampMicros,
} from '../src/index.js';

describe('timestamps', () => {
  it('always have six fractional digits and a Z', () => {
    expect(isoTimestamp(Date.UTC(2024, 4, 1, 12, 0, 0))).toBe('2024-05-01T12:00:00.000000Z');
    expect(isoTimestamp(Date.UTC(2024, 4, 1, 12, 0, 0) + 123.456)).toBe('2024-05-01T12:00:00.123456Z');
    expect(isoTimestamp(Number.NaN)).toBe('1970-01-01T00:00:00.000000Z');
  });

  it('round-trip exactly to microseconds for any mtime', () => {
    for (let i = 0; i < 2000; i++) {
      const ms = 1_600_000_000_000 + Math.random() * 100_000_000_000;
      const iso = isoTimestamp(ms);
      expect(parseTimestampMicros(iso)).toBe(Math.floor(ms * 1000));
    }
  });

  it('parse RFC 1123 and offsets, and refuse nonsense', () => {
    expect(parseTimestampMicros('Thu, 01 Jan 2015 00:00:00 GMT')).toBe(Date.UTC(2015, 0, 1) * 1000);
    expect(parseTimestampMicros('2015-01-01T01:00:00.5+01:00')).toBe(Date.UTC(2015, 0, 1) * 1000 + 500_000);
    expect(parseTimestampMicros('soon')).toBeNull();
  });
});

describe('base64', () => {
  it('encodes in 76-character lines with a trailing newline, like Python encodebytes', () => {
    const data = new Uint8Array(100).map((_, i) => i);
    const text = encodeBase64Lines(data);
    expect(text.split('\n').map((line) => line.length)).toEqual([76, 60, 0]);
    expect(encodeBase64Lines(new Uint8Array())).toBe('');
  });

  it('decodes with or without line breaks and refuses garbage', () => {
    const data = new Uint8Array(100).map((_, i) => 255 - i);
    expect(decodeBase64Strict(encodeBase64Lines(data))).toEqual(Buffer.from(data));
    expect(decodeBase64Strict(Buffer.from(data).toString('base64'))).toEqual(Buffer.from(data));
    for (const bad of ['@@@@', 'abc', 'ab=c', 'a===', 'Zm9v!']) expect(decodeBase64Strict(bad), bad).toBeNull();
  });
});

describe('names and paths', () => {
  const taken = (names: string[]) => async (n: string) => names.includes(n);

  it('increments like jupyter_server (first dot for files, last for notebooks)', async () => {
    expect(await incrementName('Untitled.ipynb', '', taken([]))).toBe('Untitled.ipynb');
    expect(await incrementName('Untitled.ipynb', '', taken(['Untitled.ipynb', 'Untitled1.ipynb']))).toBe(
      'Untitled2.ipynb',
    );
    expect(await incrementName('a.b.ipynb', '-Copy', taken(['a.b.ipynb']))).toBe('a.b-Copy1.ipynb');
    expect(await incrementName('data.tar.gz', '-Copy', taken(['data.tar.gz']))).toBe('data-Copy1.tar.gz');
    expect(await incrementName('Untitled Folder', ' ', taken(['Untitled Folder']))).toBe('Untitled Folder 1');
    expect(stripCopySuffix('a-Copy12.ipynb')).toBe('a.ipynb');
    expect(stripCopySuffix('dir-Copy1')).toBe('dir-Copy1');
  });

  it('normalizes API paths and refuses escapes', () => {
    expect(normalizeApiPath('')).toBe('');
    expect(normalizeApiPath('/')).toBe('');
    expect(normalizeApiPath('/a/b.ipynb')).toBe('a/b.ipynb');
    expect(normalizeApiPath('a/b/')).toBe('a/b');
    for (const bad of ['..', 'a/../b', './a', 'a//b', '//etc/passwd', 'a\0b', 'a\\b', '/a/./b']) {
      expect(() => normalizeApiPath(bad), bad).toThrow(NbserveError);
    }
  });

  it('hides dot-paths at any depth and matches fnmatch globs', () => {
    expect(isHiddenPath('a/.git/config')).toBe(true);
    expect(isHiddenPath('a/b.txt')).toBe(false);
    const hidden = compileGlobs(['__pycache__', '*.pyc', '*~', 'x[0-9].txt', 'y[!a].txt']);
    for (const name of ['__pycache__', 'm.pyc', 'notes.txt~', 'x1.txt', 'yb.txt'])
      expect(hidden(name), name).toBe(true);
    for (const name of ['pycache', 'm.py', 'xa.txt', 'ya.txt', 'a.pyc.bak']) expect(hidden(name), name).toBe(false);
  });

  it('guesses types like Python mimetypes, compression as the encoding', () => {
    expect(guessType('a.tar.gz')).toEqual({ type: 'application/x-tar', encoding: 'gzip' });
    expect(guessType('a.tgz')).toEqual({ type: 'application/x-tar', encoding: 'gzip' });
    expect(guessType('log.gz')).toEqual({ type: null, encoding: 'gzip' });
    expect(guessType('image.PNG')).toEqual({ type: 'image/png', encoding: null });
    expect(guessType('Makefile')).toEqual({ type: null, encoding: null });
    expect(guessType('.bashrc')).toEqual({ type: null, encoding: null });
    expect(guessType('n.ipynb').type).toBeNull();
  });
});
