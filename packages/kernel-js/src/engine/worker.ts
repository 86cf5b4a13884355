/**
 * The worker thread that owns the user's global scope. Cells run here so that the kernel's
 * protocol thread stays responsive (heartbeat, control, interrupts) while user code spins.
 * Its global object is the notebook's persistent context: the protocol thread interrupts a
 * synchronous loop through the inspector (`Runtime.terminateExecution`), which unwinds the
 * running code but keeps the isolate and every variable.
 */
import { Console } from 'node:console';
import { randomUUID } from 'node:crypto';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { types } from 'node:util';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { complete, inspectAt } from './introspect.js';
import type { ErrorContent, FromWorker, Language, MimeBundle, ToWorker } from './messages.js';
import { StreamBuffer } from './output.js';
import { base64, MIMEBUNDLE, plainText, render } from './render.js';
import { CellRegistry, type CellSource, formatError, formatSyntaxError } from './traceback.js';
import { CellSyntaxError, transformCell } from './transform.js';
import { commInfo, handleComm, installWidgets, widgets } from './widgets.js';

const port = parentPort;
if (!port) throw new Error('the kernel engine must run in a worker thread');
const language: Language = (workerData as { language?: Language })?.language ?? 'javascript';

const post = (message: FromWorker) => port.postMessage(message);
const streams = new StreamBuffer(post);
const registry = new CellRegistry();
const here = path.dirname(fileURLToPath(import.meta.url));
/** Frames of the kernel itself and of Node internals are noise in a user's traceback. */
const isInternal = (file: string) => {
  if (file.startsWith('node:') || file.includes('/tsx/dist/')) return true;
  return (file.startsWith('file://') ? fileURLToPath(file) : file).startsWith(here);
};

/**
 * Output belongs to the cell that ran last (as in ipykernel). AsyncLocalStorage would attribute
 * timer output more precisely, but its async-hook bookkeeping does not survive an interrupt
 * that terminates execution mid-callback (Node aborts on the unbalanced async id stack).
 */
let lastCell = 0;
const cellOf = () => lastCell;

// --- output capture ---------------------------------------------------------------------------

function textOf(chunk: unknown, encoding?: unknown): string {
  if (typeof chunk === 'string') return chunk;
  if (chunk instanceof Uint8Array) {
    return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString(
      typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
    );
  }
  return String(chunk);
}

function streamWriter(name: 'stdout' | 'stderr') {
  return (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    streams.write(cellOf(), name, textOf(chunk, encoding));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
    return true;
  };
}

/**
 * Plain writers, not stream.Writable: an interrupt may terminate execution in the middle of a
 * write, and a Writable would then stay "busy" and buffer every later line forever.
 * `ignoreErrors: false` makes Console call nothing but `write`.
 */
const captureStream = (name: 'stdout' | 'stderr') =>
  ({ write: streamWriter(name) }) as unknown as NodeJS.WritableStream;

process.stdout.write = streamWriter('stdout') as typeof process.stdout.write;
process.stderr.write = streamWriter('stderr') as typeof process.stderr.write;
const userConsole = new Console({
  stdout: captureStream('stdout'),
  stderr: captureStream('stderr'),
  colorMode: false,
  ignoreErrors: false,
});

// The vm loader flag is documented but marked experimental; its warning would reach the log.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === 'string' ? warning : warning.message;
  if (text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;

// --- rich display ---------------------------------------------------------------------------

interface DisplayOptions {
  display_id?: string | boolean;
  update?: boolean;
  metadata?: Record<string, unknown>;
}

class DisplayHandle {
  constructor(readonly display_id: string) {}
  update(value: unknown, options: Omit<DisplayOptions, 'display_id' | 'update'> = {}): void {
    publish(render(value), { ...options, display_id: this.display_id, update: true });
  }
  display(value: unknown, options: Omit<DisplayOptions, 'display_id' | 'update'> = {}): void {
    publish(render(value), { ...options, display_id: this.display_id });
  }
  [MIMEBUNDLE]() {
    return { 'text/plain': `DisplayHandle(${JSON.stringify(this.display_id)})` };
  }
}

function publish(rendered: { data: MimeBundle; metadata: Record<string, unknown> }, options: DisplayOptions = {}) {
  const id = options.display_id === true ? randomUUID() : options.display_id || undefined;
  streams.flush();
  post({
    type: 'display',
    cell: cellOf(),
    data: rendered.data,
    metadata: { ...rendered.metadata, ...(options.metadata ?? {}) },
    transient: id ? { display_id: id } : {},
    update: options.update === true && id !== undefined,
  });
  return id ? new DisplayHandle(id) : undefined;
}

function bundle(mime: string, data: string, plain: string) {
  return { data: { [mime]: data, 'text/plain': plain }, metadata: {} };
}

const display = Object.assign((value: unknown, options?: DisplayOptions) => publish(render(value), options), {
  html: (html: string, options?: DisplayOptions) => publish(bundle('text/html', String(html), '<HTML>'), options),
  markdown: (md: string, options?: DisplayOptions) => publish(bundle('text/markdown', String(md), String(md)), options),
  svg: (svg: string, options?: DisplayOptions) => publish(bundle('image/svg+xml', String(svg), '<SVG>'), options),
  png: (data: string | Uint8Array | ArrayBuffer, options?: DisplayOptions) =>
    publish(bundle('image/png', base64(data), '<PNG image>'), options),
  jpeg: (data: string | Uint8Array | ArrayBuffer, options?: DisplayOptions) =>
    publish(bundle('image/jpeg', base64(data), '<JPEG image>'), options),
  latex: (tex: string, options?: DisplayOptions) => publish(bundle('text/latex', String(tex), String(tex)), options),
  json: (value: unknown, options?: DisplayOptions) =>
    publish(
      {
        data: { 'application/json': JSON.parse(JSON.stringify(value ?? null)), 'text/plain': plainText(value) },
        metadata: {},
      },
      options,
    ),
  text: (text: string, options?: DisplayOptions) => publish(bundle('text/plain', String(text), String(text)), options),
  bundle: (data: MimeBundle, options?: DisplayOptions) => publish(render({ [MIMEBUNDLE]: () => data }), options),
  clear: (wait = false) => {
    streams.flush();
    post({ type: 'clear', cell: cellOf(), wait: Boolean(wait) });
  },
});

// --- stdin --------------------------------------------------------------------------------

interface PendingInput {
  resolve: (value: string) => void;
  reject: (error: Error) => void;
}
const inputs = new Map<number, PendingInput>();
let nextInput = 1;

function input(prompt = '', options: { password?: boolean } = {}): Promise<string> {
  const id = nextInput++;
  streams.flush();
  return new Promise<string>((resolve, reject) => {
    inputs.set(id, { resolve, reject });
    post({ type: 'input_request', id, cell: cellOf(), prompt: String(prompt), password: options.password === true });
  });
}

// Comm messages go out under the current parent (a cell, or the frontend's comm message).
installWidgets({
  post: (message) => {
    streams.flush();
    post({ type: 'comm', cell: cellOf(), ...message });
  },
});

Object.assign(globalThis, { console: userConsole, display, input, widgets });

// --- running cells ------------------------------------------------------------------------

class KernelInterrupt extends Error {
  constructor() {
    super('Execution interrupted');
    this.name = 'KeyboardInterrupt';
  }
}

interface RunningCell {
  cell: number;
  settled: boolean;
  interrupt: (error: Error) => void;
}
let running: RunningCell | undefined;

function finish(cell: RunningCell, status: 'ok' | 'error', error?: ErrorContent, expressions = {}) {
  if (cell.settled) return;
  cell.settled = true;
  if (running === cell) running = undefined;
  streams.flush();
  post(
    error
      ? { type: 'done', cell: cell.cell, status, error, userExpressions: expressions }
      : { type: 'done', cell: cell.cell, status, userExpressions: expressions },
  );
}

let esbuild: typeof import('esbuild') | undefined;

async function transpile(code: string): Promise<{ code: string; map: SourceMap | undefined }> {
  if (language !== 'typescript') return { code, map: undefined };
  esbuild ??= await import('esbuild');
  const out = await esbuild.transform(code, {
    loader: 'ts',
    sourcemap: 'external',
    target: 'esnext',
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  return { code: out.code, map: out.map ? new SourceMap(JSON.parse(out.map)) : undefined };
}

function userExpressions(expressions: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, expression] of Object.entries(expressions)) {
    try {
      const value = vm.runInThisContext(String(expression), { displayErrors: false });
      out[key] = { status: 'ok', ...render(value) };
    } catch (error) {
      out[key] = { status: 'error', ...formatError(error, registry, isInternal) };
    }
  }
  return out;
}

async function execute(message: Extract<ToWorker, { type: 'execute' }>) {
  const { cell, code, executionCount, silent } = message;
  lastCell = cell;
  let interrupt: (error: Error) => void = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    interrupt = reject;
  });
  interrupted.catch(() => {});
  const current: RunningCell = { cell, settled: false, interrupt: (error) => interrupt(error) };
  running = current;
  const source: CellSource = { executionCount, source: code, firstLineShift: 0 };
  const filename = path.join(process.cwd(), `[cell-${cell}]`);
  try {
    let transformed: ReturnType<typeof transformCell>;
    try {
      const js = await transpile(code);
      source.sourceMap = js.map;
      transformed = transformCell(js.code);
    } catch (error) {
      const syntax = syntaxLocation(error, source);
      if (syntax)
        return finish(current, 'error', formatSyntaxError(source, syntax.message, syntax.line, syntax.column));
      throw error;
    }
    source.firstLineShift = transformed.firstLineShift;
    registry.add(filename, source);
    const script = new vm.Script(transformed.code, {
      filename,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    let value = script.runInThisContext({ displayErrors: false });
    if (transformed.isAsync)
      value = ((await Promise.race([value, interrupted])) as { value?: unknown } | undefined)?.value;
    // A promise as the cell's value is awaited, so `fetch(url).then(r => r.json())` shows data.
    if (transformed.hasResult && types.isPromise(value)) value = await Promise.race([value, interrupted]);
    if (current.settled) return;
    if (transformed.hasResult && value !== undefined && !silent) {
      const rendered = render(value);
      streams.flush();
      post({ type: 'result', cell, data: rendered.data, metadata: rendered.metadata });
    }
    finish(current, 'ok', undefined, userExpressions(message.userExpressions));
  } catch (error) {
    finish(current, 'error', formatError(error, registry, isInternal));
  }
}

/** Syntax errors from acorn, esbuild or V8, in cell coordinates; null for other errors. */
function syntaxLocation(error: unknown, cell: CellSource): { message: string; line: number; column: number } | null {
  if (error instanceof CellSyntaxError) {
    if (!cell.sourceMap) return { message: error.message, line: error.line, column: error.column };
    const entry = cell.sourceMap.findEntry(error.line - 1, error.column) as {
      originalLine?: number;
      originalColumn?: number;
    };
    return {
      message: error.message,
      line: (entry.originalLine ?? error.line - 1) + 1,
      column: entry.originalColumn ?? error.column,
    };
  }
  const failures = (error as { errors?: { text: string; location?: { line: number; column: number } }[] }).errors;
  const first = Array.isArray(failures) ? failures[0] : undefined;
  if (first?.location) return { message: first.text, line: first.location.line, column: first.location.column };
  return null;
}

function interruptRunning() {
  for (const [id, pending] of inputs) {
    inputs.delete(id);
    pending.reject(new KernelInterrupt());
  }
  const current = running;
  if (!current) return;
  const error = new KernelInterrupt();
  current.interrupt(error);
  finish(current, 'error', {
    ename: error.name,
    evalue: error.message,
    traceback: [`\x1b[0;31m${error.name}\x1b[0m: ${error.message}`],
  });
}

/** Errors nobody awaited: they fail the cell that caused them, or are reported under it. */
function reportUncaught(error: unknown) {
  const cell = cellOf();
  const content = formatError(error, registry, isInternal);
  if (running && running.cell === cell) return finish(running, 'error', content);
  streams.flush();
  post({ type: 'error', cell, error: content });
}
process.on('uncaughtException', reportUncaught);
process.on('unhandledRejection', reportUncaught);

/** Introspection must always answer: the shell queue waits for the reply. */
function reply(id: number, produce: () => Record<string, unknown>) {
  let content: Record<string, unknown>;
  try {
    content = produce();
  } catch (error) {
    content = { status: 'error', ...formatError(error, registry, isInternal) };
  }
  post({ type: 'reply', id, content });
}

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'execute':
      void execute(message);
      break;
    case 'complete':
      reply(message.id, () => complete(message.code, message.cursorPos));
      break;
    case 'inspect':
      reply(message.id, () => inspectAt(message.code, message.cursorPos, message.detailLevel));
      break;
    case 'input_reply': {
      const pending = inputs.get(message.id);
      inputs.delete(message.id);
      pending?.resolve(message.value);
      break;
    }
    case 'input_cancel': {
      const pending = inputs.get(message.id);
      inputs.delete(message.id);
      pending?.reject(new Error(message.reason));
      break;
    }
    case 'comm': {
      // What observers print or update while handling it belongs to the frontend's message.
      const previous = lastCell;
      lastCell = message.cell;
      reply(message.id, () => {
        if (message.msgType === 'comm_info_request') return commInfo(message.content.target_name);
        try {
          handleComm(message.msgType, message.content, message.buffers);
        } catch (error) {
          streams.flush();
          post({ type: 'error', cell: message.cell, error: formatError(error, registry, isInternal) });
        }
        return {};
      });
      streams.flush();
      if (lastCell === message.cell) lastCell = previous;
      break;
    }
    case 'interrupt':
      interruptRunning();
      post({ type: 'interrupted' });
      break;
  }
});

post({ type: 'ready' });
