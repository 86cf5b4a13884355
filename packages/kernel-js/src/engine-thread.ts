import { EventEmitter } from 'node:events';
import type { Session } from 'node:inspector';
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { FromWorker, Language, ToWorker } from './engine/messages.js';

/** How long to wait for the worker's inspector to confirm a termination before moving on. */
const TERMINATE_ACK_MS = 1000;
/** A worker that has not handled an interrupt message within this time is running synchronous code. */
const BUSY_MS = 100;
/** Node internals that wrap a callback in JavaScript-side emitBefore/emitAfter(asyncId). */
const CALLBACK_RUNNERS = new Set(['listOnTimeout', 'processImmediate', 'processTicksAndRejections']);

interface InspectorMessage {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
}

interface CallFrame {
  callFrameId: string;
  functionName: string;
  url: string;
}

/**
 * The worker thread running user code, seen from the protocol thread. Interrupts reach a
 * synchronous `while (true) {}` through the inspector: `Runtime.terminateExecution` unwinds the
 * worker's current JavaScript without ending the thread, and the follow-up `interrupt` message
 * then fails the cell (and any pending `await`) with a KeyboardInterrupt.
 */
export class EngineThread extends EventEmitter<{ message: [FromWorker]; exit: [number] }> {
  readonly #language: Language;
  #worker: Worker | undefined;
  #inspector: Session | undefined;
  #inspectorSession: string | undefined;
  #nextCommand = 1;
  readonly #acks = new Map<number, (reply: InspectorMessage) => void>();
  readonly #events = new Map<string, (params: unknown) => void>();
  readonly #ready: Promise<void>;
  #booted!: (ready: Promise<void>) => void;

  /** Nothing runs until `start()`: the kernel binds its sockets first (they answer kernel_info). */
  constructor(language: Language) {
    super();
    this.#language = language;
    this.#ready = new Promise<Promise<void>>((resolve) => {
      this.#booted = resolve;
    }).then((ready) => ready);
  }

  /** Boots the worker (idempotent). */
  start(): void {
    if (this.#worker) return;
    // Required here, not at the top: compiling these builtins is not on the way to binding.
    const load = createRequire(import.meta.url);
    const { Session } = load('node:inspector') as typeof import('node:inspector');
    const { Worker } = load('node:worker_threads') as typeof import('node:worker_threads');
    const inspector = new Session();
    this.#inspector = inspector;
    inspector.connect();
    // Loader-hook threads (tsx in development) attach too: pick the session of our worker.
    const sessions = new Map<number, string>();
    inspector.on('NodeWorker.attachedToWorker', (event) => {
      const params = event.params as { sessionId: string; workerInfo: { workerId: string } };
      sessions.set(Number(params.workerInfo.workerId), params.sessionId);
      if (this.#worker && sessions.has(this.#worker.threadId))
        this.#inspectorSession = sessions.get(this.#worker.threadId);
    });
    inspector.on('NodeWorker.receivedMessageFromWorker', (event) => {
      const message = JSON.parse((event.params as { message: string }).message) as InspectorMessage;
      if (message.id !== undefined) this.#acks.get(message.id)?.(message);
      else if (message.method) this.#events.get(message.method)?.(message.params);
    });
    const attached = new Promise<void>((resolve, reject) =>
      inspector.post('NodeWorker.enable', { waitForDebuggerOnStart: false }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    const [entry, mode] = workerEntry();
    const worker = new Worker(entry, {
      ...mode,
      workerData: { language: this.#language },
      stdout: false,
      stderr: false,
    });
    this.#worker = worker;
    this.#inspectorSession = sessions.get(worker.threadId);
    worker.on('message', (message: FromWorker) => this.emit('message', message));
    worker.on('exit', (code) => this.emit('exit', code));
    worker.on('error', (error) => {
      process.stderr.write(`kernel worker failed: ${error.stack ?? error}\n`);
    });
    this.#booted(
      Promise.all([
        attached,
        new Promise<void>((resolve) => {
          const onReady = (message: FromWorker) => {
            if (message.type !== 'ready') return;
            this.off('message', onReady);
            resolve();
          };
          this.on('message', onReady);
        }),
      ]).then(() => {}),
    );
  }

  /** Resolves when the worker can run code (after `start()`). */
  ready(): Promise<void> {
    return this.#ready;
  }

  send(message: ToWorker): void {
    this.#worker?.postMessage(message);
  }

  /**
   * Stops whatever the worker is running (a busy loop or a pending await); variables survive.
   * A worker that is free handles the `interrupt` message at once; only one that does not
   * answer within BUSY_MS is stuck in synchronous code and gets its execution terminated.
   */
  async interrupt(): Promise<void> {
    if (!this.#worker) return;
    const handled = this.#waitFor('interrupted', BUSY_MS);
    this.send({ type: 'interrupt' });
    if (await handled) return;
    if (!this.#inspectorSession) return;
    const settled = this.#waitFor('interrupted', TERMINATE_ACK_MS);
    await this.#terminateSafely();
    // The queued `interrupt` message runs as soon as the terminated code has unwound.
    await settled;
  }

  /** One inspector command to the worker; resolves with its reply (undefined on timeout). */
  #command(method: string, params: Record<string, unknown> = {}): Promise<InspectorMessage | undefined> {
    const session = this.#inspectorSession;
    if (!session) return Promise.resolve(undefined);
    const id = this.#nextCommand++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#acks.delete(id);
        resolve(undefined);
      }, TERMINATE_ACK_MS);
      this.#acks.set(id, (reply) => {
        clearTimeout(timer);
        this.#acks.delete(id);
        resolve(reply);
      });
      this.#inspector?.post('NodeWorker.sendMessageToWorker', {
        sessionId: session,
        message: JSON.stringify({ id, method, params }),
      });
    });
  }

  /**
   * Terminates the worker's running JavaScript. Node's timer, immediate and nextTick runners
   * push an async context in JavaScript and pop it after the callback; terminating inside such
   * a callback would skip the pop and Node aborts on the unbalanced stack. So the worker is
   * paused first, and in each such runner frame on the stack the pop is done in advance.
   */
  async #terminateSafely(): Promise<void> {
    await this.#command('Debugger.enable');
    const paused = new Promise<{ callFrames: CallFrame[] } | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), TERMINATE_ACK_MS);
      this.#events.set('Debugger.paused', (params) => {
        clearTimeout(timer);
        resolve(params as { callFrames: CallFrame[] });
      });
    });
    await this.#command('Debugger.pause');
    const event = await paused;
    this.#events.delete('Debugger.paused');
    for (const frame of event?.callFrames ?? []) {
      // Node's internal scripts show no url (or node:internal/...); user code always has one.
      if (!CALLBACK_RUNNERS.has(frame.functionName) || !(frame.url === '' || frame.url.startsWith('node:'))) continue;
      await this.#command('Debugger.evaluateOnCallFrame', {
        callFrameId: frame.callFrameId,
        expression: 'emitAfter(asyncId)',
        silent: true,
      });
    }
    await this.#command('Runtime.terminateExecution');
    await this.#command('Debugger.resume');
    await this.#command('Debugger.disable');
  }

  #waitFor(type: FromWorker['type'], timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const onMessage = (message: FromWorker) => {
        if (message.type !== type) return;
        clearTimeout(timer);
        this.off('message', onMessage);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.off('message', onMessage);
        resolve(false);
      }, timeoutMs);
      this.on('message', onMessage);
    });
  }

  async terminate(): Promise<void> {
    this.#inspector?.disconnect();
    await this.#worker?.terminate();
  }
}

/**
 * The built worker file, or, when running from TypeScript sources, a bootstrap that installs
 * tsx inside the worker first (Node 20 does not carry `--import` loaders into workers).
 */
function workerEntry(): [URL | string, { eval?: boolean }] {
  if (!import.meta.url.endsWith('.ts')) return [new URL('./engine/worker.js', import.meta.url), {}];
  const api = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./engine/worker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return [code, { eval: true }];
}
