import * as v from 'valibot';
import { badRequest, internalError, timeoutError } from '../errors.js';
import { runProcess } from '../util/run-process.js';

// Runs inside /usr/bin/python3. Settings as upstream's rstservice: no file insertion (include,
// csv-table :file:/:url:), no raw passthrough, no config files; then every link and image URL
// with a scheme other than http(s)/mailto/ftp is defused in the doctree before writing.
const SCRIPT = String.raw`
import io, json, re, sys
from docutils import nodes
from docutils.core import Publisher, publish_doctree
from docutils.io import DocTreeInput, StringOutput
from docutils.readers.doctree import Reader
src = sys.stdin.read()
settings = {
    'file_insertion_enabled': False, 'raw_enabled': False, '_disable_config': True,
    'report_level': 3, 'halt_level': 5, 'warning_stream': io.StringIO(),
    'embed_stylesheet': True, 'math_output': 'HTML', 'syntax_highlight': 'none',
    'input_encoding': 'unicode', 'output_encoding': 'unicode', 'traceback': False,
}
safe = re.compile(r'^(https?:|mailto:|ftp:|#|[^:]*$)', re.I)
clean = lambda u: re.sub(r'[\x00-\x20\x7f]', '', u)
doctree = publish_doctree(src, settings_overrides=settings)
for node in doctree.traverse(nodes.reference):
    if 'refuri' in node and not safe.match(clean(node['refuri'])):
        node['refuri'] = '#'
for node in doctree.traverse(nodes.image):
    if not safe.match(clean(node.get('uri', ''))):
        node['uri'] = '#'
pub = Publisher(reader=Reader(parser_name='null'), source=DocTreeInput(doctree), destination_class=StringOutput)
pub.set_writer('html5')
pub.process_programmatic_settings(None, settings, None)
pub.set_destination(None, None)
pub.publish()
parts = pub.writer.parts
json.dump({'title': str(doctree.get('title', '')), 'body': parts['html_body'], 'style': parts['stylesheet']}, sys.stdout)
`;

const Parts = v.object({ title: v.string(), body: v.string(), style: v.string() });

export interface DocutilsOptions {
  /** The Python with docutils; default `/usr/bin/python3`. */
  python?: string;
  timeoutMs?: number;
}

/** reST through docutils, as upstream's `/rstservice/render` did. */
export class DocutilsRenderer {
  private readonly python: string;
  private readonly timeoutMs: number;

  constructor(options: DocutilsOptions = {}) {
    this.python = options.python ?? '/usr/bin/python3';
    this.timeoutMs = options.timeoutMs ?? 20_000;
  }

  /** True when the Python runs and imports docutils. */
  async available(): Promise<boolean> {
    const result = await runProcess([this.python, '-c', 'import docutils.core'], { timeoutMs: 20_000 });
    return result.code === 0;
  }

  async render(source: string): Promise<{ title: string; body: string; style: string }> {
    const result = await runProcess([this.python, '-I', '-c', SCRIPT], {
      input: source,
      timeoutMs: this.timeoutMs,
      maxOutputBytes: 32 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONIOENCODING: 'utf-8' },
    });
    if (result.timedOut) throw timeoutError('reST rendering timed out');
    if (result.code !== 0) {
      console.error(`[nbserve] docutils failed: ${result.stderr.slice(-2000)}`);
      throw badRequest('Invalid RST', 'bad rst');
    }
    const parsed = v.safeParse(Parts, JSON.parse(result.stdout.toString('utf8')));
    if (!parsed.success) throw internalError('docutils returned an unexpected result');
    return parsed.output;
  }
}
