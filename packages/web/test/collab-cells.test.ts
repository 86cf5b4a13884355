// needs: kernel
import { YNotebook } from '@jupyter/ydoc';
import { describe, expect, it } from 'vitest';
import { pageCell, snapshot, toSharedCell } from '../src/browser/notebook/collab/cells.js';

describe('cells between the page and the shared document', () => {
  it('gives the document one string per text, and no trust flag', () => {
    const shared = toSharedCell({
      id: 'c1',
      cell_type: 'code',
      source: ['a = 1\n', 'print(a)'] as unknown as string,
      metadata: { trusted: true, tags: ['x'] },
      execution_count: 3,
      outputs: [
        { output_type: 'stream', name: 'stdout', text: ['1\n', '2\n'] as unknown as string },
        { output_type: 'display_data', data: { 'text/plain': 'x' }, metadata: {}, transient: { display_id: 'd' } },
      ],
    });
    expect(shared).toEqual({
      id: 'c1',
      cell_type: 'code',
      source: 'a = 1\nprint(a)',
      metadata: { tags: ['x'] },
      execution_count: 3,
      outputs: [
        { output_type: 'stream', name: 'stdout', text: '1\n2\n' },
        { output_type: 'display_data', data: { 'text/plain': 'x' }, metadata: {} },
      ],
    });
  });

  it('reads back from a YNotebook what was put in, as the page keeps it', () => {
    const nb = new YNotebook();
    nb.insertCells(0, [
      toSharedCell({ id: 'c1', cell_type: 'markdown', source: '# Title', metadata: {} }),
      toSharedCell({
        id: 'c2',
        cell_type: 'code',
        source: 'print(1)',
        metadata: {},
        execution_count: 1,
        outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
      }),
    ] as never);
    const page = snapshot(nb.cells, { kernelspec: { name: 'python3' } });
    expect(page.metadata).toEqual({ kernelspec: { name: 'python3' } });
    expect(page.cells.map((c) => [c.id, c.cell_type, c.source])).toEqual([
      ['c1', 'markdown', '# Title'],
      ['c2', 'code', 'print(1)'],
    ]);
    expect(pageCell(nb.cells[1] as never)).toMatchObject({
      execution_count: 1,
      outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
    });
    nb.dispose();
  });
});
