import { ExportManager } from '@nbserve/core';
import { describe, expect, it } from 'vitest';
import { renderNotebookHtml } from '../src/server/print.js';

/** A cell whose stream output rewrites its line as a progress bar does (`\r`), with a backspace. */
const notebook = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    {
      cell_type: 'code',
      id: 'c1',
      metadata: {},
      execution_count: 1,
      source: 'progress()',
      outputs: [{ output_type: 'stream', name: 'stdout', text: ['done 10%\rdone 9\n', 'ab\bc\n'] }],
    },
  ],
};

/** What a terminal (and the notebook page) shows: the cursor goes back, later text overwrites. */
const SHOWN = ['done 90%', 'ac'];

describe('stream text with carriage returns and backspaces', () => {
  it('reads the same in the HTML export, the Markdown export and the print view', async () => {
    const exports = new ExportManager({ nbconvert: false, pdf: false });
    const html = Buffer.from((await exports.export('html', notebook, 'nb')).body).toString('utf8');
    const markdown = Buffer.from((await exports.export('markdown', notebook, 'nb')).body).toString('utf8');
    const print = renderNotebookHtml(notebook);
    for (const shown of SHOWN) {
      expect(html).toContain(shown);
      expect(markdown).toContain(shown);
      expect(print).toContain(shown);
    }
    for (const rendered of [html, markdown, print]) {
      expect(rendered).not.toContain('done 10%');
      expect(rendered).not.toContain('\r');
      expect(rendered).not.toContain('\b');
    }
  });
});
