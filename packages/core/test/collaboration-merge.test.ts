import type { YFile } from '@jupyter/ydoc';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { matchCells } from '../src/collaboration/cell-match.js';
import { mergeDisk } from '../src/collaboration/disk-merge.js';
import { SharedDocument } from '../src/collaboration/shared-document.js';
import { mergeText, textEdits } from '../src/collaboration/text-merge.js';

const DISK = Symbol('disk');

type Cell = Record<string, unknown> & { cell_type: string };
const code = (source: string, id?: string, extra: Record<string, unknown> = {}): Cell => ({
  cell_type: 'code',
  ...(id === undefined ? {} : { id }),
  source,
  metadata: {},
  outputs: [],
  execution_count: null,
  ...extra,
});
const markdown = (source: string, id?: string): Cell => ({
  cell_type: 'markdown',
  ...(id === undefined ? {} : { id }),
  source,
  metadata: {},
});
const notebook = (cells: Cell[], minor = 5, metadata: Record<string, unknown> = {}) => ({
  cells,
  metadata,
  nbformat: 4,
  nbformat_minor: minor,
});

/** A shared notebook loaded from `content`, and the base a room keeps for it. */
function loaded(content: unknown): { doc: SharedDocument; base: unknown } {
  const doc = new SharedDocument('json:notebook');
  doc.setContent(content, DISK);
  return { doc, base: doc.snapshot() };
}

const sources = (doc: SharedDocument) => doc.notebook?.cells.map((cell) => cell.getSource());

describe('matching cells of two versions of a file', () => {
  it('matches by id, then by content, then an edited cell without id by its place', () => {
    const before = [code('a', 'x'), code('b'), code('c'), markdown('d')];
    const after = [code('c'), code('a changed', 'x'), markdown('new')];
    // c by content (moved); x by id; the markdown cell without id takes d's place; b is gone.
    expect(matchCells(before, after)).toEqual([2, 0, 3]);
    // Without ids, a cell both moved and edited cannot be told from a new one.
    expect(matchCells([code('p'), code('q')], [code('q'), code('p!')])).toEqual([1, -1]);
  });

  it('a cell with a new id is a new cell, however alike', () => {
    expect(matchCells([code('a', 'x')], [code('a edited', 'y')])).toEqual([-1]);
  });
});

describe('text merges', () => {
  it('edits only what changed, by characters', () => {
    expect(textEdits('abcdef', 'abXdeYf')).toEqual([
      { at: 2, length: 1, text: 'X' },
      { at: 5, length: 0, text: 'Y' },
    ]);
  });

  it('applies the file change where it falls in the shared text; an overlap makes the file win', () => {
    const doc = new Y.Doc();
    const text = doc.getText('t');
    text.insert(0, 'one\ntwo\nthree\n');
    text.insert(3, ' (mine)');
    expect(mergeText(text, 'one\ntwo\nthree\n', 'one\ntwo\nthree (file)\n')).toBe(true);
    expect(text.toString()).toBe('one (mine)\ntwo\nthree (file)\n');
    expect(mergeText(text, 'one\ntwo\nthree (file)\n', 'one!\ntwo\nthree (file)\n')).toBe(false);
    expect(text.toString()).toBe('one!\ntwo\nthree (file)\n');
  });

  it('merges a text file the same way', () => {
    const doc = new SharedDocument('text:file');
    doc.setContent('a\nb\nc\n', DISK);
    (doc.model as YFile).updateSource(0, 0, '# ');
    const merged = mergeDisk(doc, 'a\nb\nc\n', 'a\nb\nc\nd\n', DISK);
    expect((doc.model as YFile).getSource()).toBe('# a\nb\nc\nd\n');
    expect(merged).toMatchObject({ base: 'a\nb\nc\nd\n', exact: false });
  });
});

describe('merging a notebook file into its shared document', () => {
  it('nbformat 4.4 (no ids): an edited cell keeps its object; a new one is inserted; the result is exact', () => {
    const { doc, base } = loaded(notebook([code('a = 1'), code('b = 2'), markdown('# m')], 4));
    const nb = doc.notebook;
    if (!nb) throw new Error('a notebook');
    const [first, second] = nb.cells;
    const merged = mergeDisk(doc, base, notebook([code('a = 10'), code('b = 2'), code('c'), markdown('# m')], 4), DISK);
    expect(sources(doc)).toEqual(['a = 10', 'b = 2', 'c', '# m']);
    expect(nb.cells[0]).toBe(first);
    expect(nb.cells[1]).toBe(second);
    expect(merged.exact).toBe(true);
    expect(merged.conflicts).toEqual([]);
  });

  it('a cell deleted in the room and unchanged in the file stays deleted; one changed in the file comes back', () => {
    const { doc, base } = loaded(notebook([code('a', 'x'), code('b', 'y')]));
    const nb = doc.notebook;
    if (!nb) throw new Error('a notebook');
    nb.deleteCellRange(0, 2);
    const merged = mergeDisk(doc, base, notebook([code('a', 'x'), code('b changed', 'y')]), DISK);
    expect(nb.cells.map((cell) => cell.id)).toEqual(['y']);
    expect(sources(doc)).toEqual(['b changed']);
    expect(merged.exact).toBe(false); // the room's deletion is still to be saved
  });

  it('a type changed in the file makes a new cell; metadata and outputs change only where the file changed them', () => {
    const output = { output_type: 'stream', name: 'stdout', text: 'hi\n' };
    const { doc, base } = loaded(
      notebook([code('x', 'a', { outputs: [output], execution_count: 1 }), code('y', 'b')], 5, { k: 1 }),
    );
    const nb = doc.notebook;
    if (!nb) throw new Error('a notebook');
    const first = nb.cells[0];
    nb.setMetadata('mine', true);
    nb.getCell(0).setMetadata('tags', ['room']);
    mergeDisk(
      doc,
      base,
      notebook([code('x', 'a', { outputs: [output], execution_count: 1 }), markdown('y', 'b')], 5, { k: 2 }),
      DISK,
    );
    expect(nb.cells[0]).toBe(first);
    expect(nb.getCell(0).getMetadata()).toMatchObject({ tags: ['room'] });
    expect(nb.cells.map((cell) => [cell.id, cell.cell_type])).toEqual([
      ['a', 'code'],
      ['b', 'markdown'],
    ]);
    expect(nb.getMetadata()).toMatchObject({ k: 2, mine: true });
  });

  it('without a base (changed while no room was open) the file wins everywhere, with no conflict', () => {
    const { doc } = loaded(notebook([code('a', 'x')]));
    doc.notebook?.getCell(0).updateSource(1, 1, ' typed');
    const merged = mergeDisk(doc, null, notebook([code('from file', 'x')]), DISK);
    expect(sources(doc)).toEqual(['from file']);
    expect(merged).toMatchObject({ exact: true, conflicts: [] });
  });
});
