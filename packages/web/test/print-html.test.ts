import { describe, expect, it } from 'vitest';
import { renderNotebookHtml } from '../src/server/print.js';

describe('renderNotebookHtml', () => {
  it('renders object outputs and skips anything else in the outputs list', () => {
    const stream = { output_type: 'stream', name: 'stdout', text: 'hello' };
    const html = renderNotebookHtml({
      cells: [{ cell_type: 'code', source: 'x', execution_count: 1, outputs: [null, ['stream'], 'text', 3, stream] }],
    });
    expect(html.match(/<pre class="output-stream/g)).toHaveLength(1);
    expect(html).toContain('hello</pre>');
    expect(html).toContain('In&nbsp;[1]:');
  });
});
