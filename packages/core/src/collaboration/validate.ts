import * as Y from 'yjs';
import { isObject } from '../util/is-object.js';

const CELL_TYPES: ReadonlySet<unknown> = new Set(['code', 'markdown', 'raw']);

/**
 * True when an update only inserts or deletes characters of existing texts (typing): such an
 * update cannot change a document's structure, so it needs no trial application. Text inserts
 * are `ContentString` items; a deletion is checked against the items it removes.
 */
export function isTextOnlyUpdate(doc: Y.Doc, update: Uint8Array): boolean {
  const { structs, ds } = Y.decodeUpdate(update);
  for (const struct of structs) {
    if (struct instanceof Y.Item && !(struct.content instanceof Y.ContentString)) return false;
  }
  for (const [client, ranges] of ds.clients) {
    const known = doc.store.clients.get(client);
    if (!known) continue; // deletes of unknown items are kept pending by Yjs, checked when they apply
    for (const range of ranges) {
      let index = Y.findIndexSS(known, range.clock);
      for (; index < known.length; index++) {
        const struct = known[index];
        if (!struct || struct.id.clock >= range.clock + range.len) break;
        if (struct instanceof Y.Item && !(struct.content instanceof Y.ContentString)) return false;
      }
    }
  }
  return true;
}

/**
 * Why a notebook document is not a valid notebook as JupyterLab's model writes it (`@jupyter/ydoc`
 * 4): `cells` holds maps with a known `cell_type`, a text `source`, and for code cells a list of
 * output maps; `meta.metadata` is a map. `null` when it is valid.
 */
export function notebookProblem(doc: Y.Doc): string | null {
  const cells = doc.getArray('cells').toArray();
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i];
    if (!(cell instanceof Y.Map)) return `cell ${i} is not a map`;
    const type = cell.get('cell_type');
    if (!CELL_TYPES.has(type)) return `cell ${i} has an invalid cell_type ${JSON.stringify(type)?.slice(0, 40)}`;
    const source = cell.get('source');
    if (!(source instanceof Y.Text) && typeof source !== 'string') return `cell ${i} has no text source`;
    const metadata = cell.get('metadata');
    if (metadata !== undefined && !(metadata instanceof Y.Map) && !isObject(metadata)) {
      return `cell ${i} has metadata that is not a map`;
    }
    if (type !== 'code') continue;
    const outputs = cell.get('outputs');
    if (outputs === undefined) continue;
    if (!(outputs instanceof Y.Array)) return `cell ${i} has outputs that are not a list`;
    for (const output of outputs.toArray()) {
      const kind = output instanceof Y.Map ? output.get('output_type') : isObject(output) ? output.output_type : null;
      if (typeof kind !== 'string') return `cell ${i} has an output without output_type`;
    }
    const count = cell.get('execution_count');
    if (count !== undefined && count !== null && typeof count !== 'number') {
      return `cell ${i} has an execution_count that is not a number`;
    }
  }
  const metadata = doc.getMap('meta').get('metadata');
  if (metadata !== undefined && !(metadata instanceof Y.Map) && !isObject(metadata)) {
    return 'the notebook metadata is not a map';
  }
  return null;
}
