// needs: kernel
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { invalidNotebook } from '../../../testing/notebooks.js';
import { readNotebook, serializeNotebook, toNotebookV4, validateNotebookV4 } from '../src/index.js';

/** Runs real nbformat (Debian python3-nbformat) on stdin; the reference for the on-disk layout. */
function python(script: string, input: string): string {
  return execFileSync('/usr/bin/python3', ['-c', script], { input, encoding: 'utf8' });
}

const rich = {
  cells: [
    {
      cell_type: 'markdown',
      id: 'md-1',
      metadata: { tags: ['intro'] },
      source: '# Title\n\nSome *text* — ünïcödé 🎉\n',
    },
    {
      cell_type: 'code',
      id: 'code-1',
      metadata: { collapsed: false, scrolled: 'auto' },
      execution_count: 3,
      source: 'import json\nprint("a\\tb")\r\nx = 1',
      outputs: [
        { output_type: 'stream', name: 'stdout', text: 'line 1\nline 2\n' },
        {
          output_type: 'execute_result',
          execution_count: 3,
          metadata: {},
          data: {
            'text/plain': "{'a': 1}\n(second line)",
            'application/json': { a: [1, 2, { b: null }] },
            'image/png':
              'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk\nYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\n',
          },
        },
        {
          output_type: 'display_data',
          metadata: { 'image/svg+xml': { isolated: true } },
          data: { 'text/html': '<b>bold</b>\n<i>it</i>', 'image/svg+xml': '<svg>\n</svg>\n' },
        },
        { output_type: 'error', ename: 'ValueError', evalue: 'bad', traceback: ['\u001b[31mTraceback', 'line'] },
      ],
    },
    { cell_type: 'raw', id: 'raw-1', metadata: { format: 'text/x-rst' }, source: '' },
  ],
  metadata: {
    kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' },
    language_info: { name: 'python', version: '3.11.2' },
  },
  nbformat: 4,
  nbformat_minor: 5,
};

describe('nbformat on disk', () => {
  it('writes byte-for-byte what nbformat.writes produces', () => {
    const ours = new TextDecoder().decode(serializeNotebook(structuredClone(rich)));
    const theirs = python(
      'import sys, nbformat\nnb = nbformat.reads(sys.stdin.read(), as_version=4)\nsys.stdout.write(nbformat.writes(nb) + "\\n")',
      JSON.stringify(rich),
    );
    expect(ours).toBe(theirs);
  });

  it('reads back what it wrote, lines joined, and nbformat validates it', () => {
    const bytes = serializeNotebook(structuredClone(rich));
    const parsed = readNotebook(bytes, 'rich.ipynb');
    expect(parsed.validationMessage).toBeNull();
    expect(parsed.notebook).toEqual(rich);
    const verdict = python(
      'import sys, nbformat\nnbformat.validate(nbformat.reads(sys.stdin.read(), as_version=4))\nprint("valid")',
      new TextDecoder().decode(bytes),
    );
    expect(verdict.trim()).toBe('valid');
  });

  it('agrees with nbformat about what is invalid', () => {
    const broken = [
      { ...rich, cells: [{ cell_type: 'code', id: 'x', metadata: {}, source: '' }] }, // no outputs
      { ...rich, cells: [{ cell_type: 'markdown', id: 'bad id!', metadata: {}, source: '' }] },
      { ...rich, extra: 1 },
      {
        ...rich,
        cells: [{ cell_type: 'code', id: 'a', metadata: {}, source: '', execution_count: -1, outputs: [] }],
      },
      {
        ...rich,
        cells: [
          {
            cell_type: 'code',
            id: 'a',
            metadata: {},
            source: '',
            execution_count: null,
            outputs: [{ output_type: 'stream', name: 'stdout' }],
          },
        ],
      },
    ];
    for (const nb of broken) {
      const ours = validateNotebookV4(nb);
      const theirs = python(
        'import sys, json, nbformat\ntry:\n  nbformat.validate(json.loads(sys.stdin.read()), version=4)\n  print("valid")\nexcept nbformat.ValidationError:\n  print("invalid")',
        JSON.stringify(nb),
      );
      expect(theirs.trim(), JSON.stringify(nb.cells)).toBe('invalid');
      expect(ours, JSON.stringify(nb.cells)).not.toBeNull();
    }
    const older = { ...rich, nbformat_minor: 4, cells: [{ cell_type: 'markdown', metadata: {}, source: 'no id' }] };
    expect(validateNotebookV4(older)).toBeNull();
    // 4.5 without ids: nbformat repairs them with a warning, and so do we
    const noIds = toNotebookV4({ ...rich, cells: [{ cell_type: 'markdown', metadata: {}, source: '' }] }, 'x');
    expect(noIds.validationMessage).toBeNull();
    expect((noIds.notebook.cells as { id?: string }[])[0]?.id).toMatch(/^[0-9a-f]{8}$/);
  });

  it('strips transient metadata and keeps unknown future cells', () => {
    const nb = structuredClone(rich) as Record<string, unknown> & typeof rich;
    (nb.metadata as Record<string, unknown>).orig_nbformat = 3;
    (nb.cells[1]?.metadata as Record<string, unknown>).trusted = true;
    const written = JSON.parse(new TextDecoder().decode(serializeNotebook(nb)));
    expect(written.metadata.orig_nbformat).toBeUndefined();
    expect(written.cells[1].metadata.trusted).toBeUndefined();
    const future = toNotebookV4(
      { ...rich, cells: [{ cell_type: 'whiteboard', id: 'w', metadata: {}, strokes: [] }] },
      'x',
    );
    expect(future.validationMessage).toBeNull();
  });

  it('upgrades v3 like nbformat.convert (ids aside)', () => {
    const v3 = {
      nbformat: 3,
      nbformat_minor: 0,
      metadata: { name: 'legacy', signature: 'sha256:x' },
      worksheets: [
        {
          cells: [
            { cell_type: 'heading', level: 1, source: 'Head\nline', metadata: {} },
            { cell_type: 'markdown', source: 'md', metadata: {} },
            {
              cell_type: 'code',
              language: 'python',
              input: 'print(1)\n2',
              prompt_number: 1,
              collapsed: true,
              metadata: {},
              outputs: [
                { output_type: 'stream', stream: 'stdout', text: '1\n', metadata: {} },
                { output_type: 'pyout', prompt_number: 1, text: '2', html: '<b>2</b>', metadata: {} },
                { output_type: 'display_data', png: 'iVBOR', json: '{"a": 1}', metadata: { png: { width: 1 } } },
                { output_type: 'pyerr', ename: 'E', evalue: 'v', traceback: ['t'] },
              ],
            },
          ],
        },
      ],
    };
    const ours = toNotebookV4(structuredClone(v3), 'v3').notebook as { cells: Record<string, unknown>[] };
    const theirs = JSON.parse(
      python(
        'import sys, json, nbformat\nnb = nbformat.reads(sys.stdin.read(), as_version=4)\nprint(json.dumps(nb))',
        JSON.stringify(v3),
      ),
    ) as { cells: Record<string, unknown>[] };
    const withoutIds = (nb: { cells: Record<string, unknown>[] }) => ({
      ...nb,
      cells: nb.cells.map(({ id: _id, ...cell }) => cell),
    });
    // nbformat.reads strips orig_nbformat (transient); readNotebook does the same.
    const oursRead = readNotebook(new TextEncoder().encode(JSON.stringify(v3)), 'v3.ipynb').notebook as {
      cells: Record<string, unknown>[];
    };
    expect(withoutIds(oursRead)).toEqual(withoutIds(theirs));
    expect(ours.cells.every((cell) => typeof cell.id === 'string')).toBe(true);
  });

  it('reads ASCII, UTF-8 and big image notebooks alike, and refuses invalid UTF-8 and JSON', () => {
    const image = Buffer.alloc(300_000, 7).toString('base64');
    const big = structuredClone(rich);
    const result = (big.cells[1] as { outputs: { data: Record<string, unknown> }[] }).outputs[1];
    if (result) result.data['image/png'] = image;
    for (const nb of [rich, big]) {
      const bytes = serializeNotebook(structuredClone(nb));
      expect(readNotebook(bytes, 'x.ipynb').notebook).toEqual(toNotebookV4(JSON.parse(bytes.toString()), 'x').notebook);
    }
    const ascii = Buffer.from(JSON.stringify({ ...rich, cells: [] }));
    expect(readNotebook(ascii, 'a.ipynb').notebook).toEqual({ ...rich, cells: [] });
    const text = JSON.stringify({ ...rich, cells: [], metadata: { title: 'ünï 🎉' } });
    expect(readNotebook(Buffer.from(text), 'u.ipynb').notebook.metadata).toEqual({ title: 'ünï 🎉' });
    const invalidUtf8 = Buffer.from(text.replace('ünï', 'XnX'));
    invalidUtf8[invalidUtf8.indexOf('XnX')] = 0xff;
    expect(() => readNotebook(invalidUtf8, 'bad.ipynb')).toThrow(/^Unreadable Notebook: bad.ipynb/);
    const broken = Buffer.from(`{"cells": [{"x": "${image}"}, ]}`);
    let expected = '';
    try {
      JSON.parse(broken.toString());
    } catch (e) {
      expected = (e as Error).message;
    }
    expect(() => readNotebook(broken, 'broken.ipynb')).toThrow(`Unreadable Notebook: broken.ipynb ${expected}`);
  });

  it('upgrades v2 through v3 like nbformat.convert (ids aside), lines joined as v2 wrote them', () => {
    // As nbformat.v2.writes_json lays it out: lines split without their ends, png as base64 text.
    const v2 = {
      nbformat: 2,
      metadata: { name: 'ancient' },
      worksheets: [
        {
          cells: [
            {
              cell_type: 'code',
              collapsed: false,
              input: ['print("hi")', 'x = 1'],
              language: 'python',
              prompt_number: 3,
              outputs: [
                { output_type: 'pyout', prompt_number: 3, text: ['a', 'b'], html: ['<b>', '</b>'], png: 'iVBOR' },
                { output_type: 'stream', text: ['out'] },
                { output_type: 'pyerr', etype: 'E', evalue: 'v', traceback: ['t'] },
              ],
            },
            { cell_type: 'markdown', source: ['# hi', 'there'], rendered: ['<h1>hi</h1>'] },
            { cell_type: 'html', source: '<p>raw</p>' },
          ],
        },
      ],
    };
    const text = JSON.stringify(v2);
    const theirs = JSON.parse(
      python('import sys, json, nbformat\nprint(json.dumps(nbformat.reads(sys.stdin.read(), as_version=4)))', text),
    ) as { cells: Record<string, unknown>[] };
    const withoutIds = (nb: { cells: Record<string, unknown>[] }) => ({
      ...nb,
      cells: nb.cells.map(({ id: _id, ...cell }) => cell),
    });
    const read = readNotebook(new TextEncoder().encode(text), 'v2.ipynb');
    expect(withoutIds(read.notebook as { cells: Record<string, unknown>[] })).toEqual(withoutIds(theirs));
    expect(read.notebook.metadata).toEqual({ orig_nbformat: 2, orig_nbformat_minor: 0 });
    expect(read.generatedIds).toBe(true);
    // submitted (PUT) content goes the same way
    const submitted = toNotebookV4(structuredClone(v2), 'v2');
    expect(withoutIds(submitted.notebook as { cells: Record<string, unknown>[] })).toEqual(withoutIds(theirs));
    // nbformat calls the v2 error output (etype, not ename) and html's `rendered` invalid v4, and so do we
    expect(read.validationMessage).toMatch(/^Notebook validation failed: /);
  });

  it('reads a v4 notebook that does not validate, with the reason (Jupyter serves it to be repaired)', () => {
    // Notebook 6.4's test_get_nb_invalid: no nbformat_minor, an unknown cell type
    const invalid = invalidNotebook();
    const parsed = readNotebook(new TextEncoder().encode(JSON.stringify(invalid)), 'invalid.ipynb');
    expect(parsed.notebook).toEqual(invalid);
    expect(parsed.validationMessage).toMatch(/^Notebook validation failed: .*nbformat_minor/);
    const verdict = python(
      'import sys, nbformat\ntry:\n  nbformat.validate(nbformat.reads(sys.stdin.read(), as_version=4))\n  print("valid")\nexcept nbformat.ValidationError:\n  print("invalid")',
      JSON.stringify(invalid),
    );
    expect(verdict.trim()).toBe('invalid');
    // still not a notebook at all: no cells, or an nbformat nobody knows
    for (const value of [{ nbformat: 4 }, { nbformat: 1, cells: [] }, { nbformat: 4, cells: 'x' }, [], 'x']) {
      expect(() => toNotebookV4(value, 'x'), JSON.stringify(value)).toThrow(/not a notebook/);
    }
  });
});
