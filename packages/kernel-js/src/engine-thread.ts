import { EventEmitter } from 'node:events';
import { Session } from 'node:inspector';
import { Worker } from 'node:worker_threads';
import type { FromWorker, Language, ToWorker } from './engine/messages.js';

/** How long to wait for the worker's inspector to confirm a termination before moving on. */
const TERMINATE_ACK_MS = 1000;
/** A worker that has not handled an interrupt message within this time is running synchronous code. */
const BUSY_MS = 100;

/**
 * The worker thread running user code, seen from the protocol thread. Interrupts reach a
 * synchronous `while (true) {}` through the inspector: `Runtime.terminateExecution` unwinds the
 * worker's current JavaScript without ending the thread, and the follow-up `interrupt` message
 * then fails the cell (and any pending `await`) with a KeyboardInterrupt.
 */
export class EngineThread extends EventEmitter<{ message: [FromWorker]; exit: [number] }> {
  readonly #worker: Worker;
  readonly #inspector = new Session();
  #inspectorSession: string | undefined;
  #nextCommand = 1;
  readonly #acks = new Map<number, () => void>();
  readonly #ready: Promise<void>;

  constructor(language: Language) {
    super();
    this.#inspector.connect();
    // Loader-hook threads (tsx in development) attach too: pick the session of our worker.
    const sessions = new Map<number, string>();
    this.#inspector.on('NodeWorker.attachedToWorker', (event) => {
      const params = event.params as { sessionId: string; workerInfo: { workerId: string } };
      sessions.set(Number(params.workerInfo.workerId), params.sessionId);
      if (this.#worker && sessions.has(this.#worker.threadId))
        this.#inspectorSession = sessions.get(this.#worker.threadId);
    });
    this.#inspector.on('NodeWorker.receivedMessageFromWorker', (event) => {
      const reply = JSON.parse((event.params as { message: string }).message) as { id?: number };
      if (reply.id !== undefined) this.#acks.get(reply.id)?.();
    });
    const attached = new Promise<void>((resolve, reject) =>
      this.#inspector.post('NodeWorker.enable', { waitForDebuggerOnStart: false }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    const [entry, mode] = workerEntry();
    this.#worker = new Worker(entry, { ...mode, workerData: { language }, stdout: false, stderr: false });
    this.#inspectorSession = sessions.get(this.#worker.threadId);
    this.#worker.on('message', (message: FromWorker) => this.emit('message', message));
    this.#worker.on('exit', (code) => this.emit('exit', code));
    this.#worker.on('error', (error) => {
      process.stderr.write(`kernel worker failed: ${error.stack ?? error}\n`);
    });
    this.#ready = Promise.all([
      attached,
      new Promise<void>((resolve) => {
        const onReady = (message: FromWorker) => {
          if (message.type !== 'ready') return;
          this.off('message', onReady);
          resolve();
        };
        this.on('message', onReady);
      }),
    ]).then(() => {});
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  send(message: ToWorker): void {
    this.#worker.postMessage(message);
  }

  /**
   * Stops whatever the worker is running (a busy loop or a pending await); variables survive.
   * A worker that is free handles the `interrupt` message at once; only one that does not
   * answer within BUSY_MS is stuck in synchronous code and gets its execution terminated.
   */
  async interrupt(): Promise<void> {
    const handled = this.#waitFor('interrupted', BUSY_MS);
    this.send({ type: 'interrupt' });
    if (await handled) return;
    const session = this.#inspectorSession;
    if (!session) return;
    const id = this.#nextCommand++;
    const acknowledged = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, TERMINATE_ACK_MS);
      this.#acks.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const settled = this.#waitFor('interrupted', TERMINATE_ACK_MS);
    this.#inspector.post('NodeWorker.sendMessageToWorker', {
      sessionId: session,
      message: JSON.stringify({ id, method: 'Runtime.terminateExecution' }),
    });
    await acknowledged;
    this.#acks.delete(id);
    // The queued `interrupt` message runs as soon as the terminated code has unwound.
    await settled;
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
    this.#inspector.disconnect();
    await this.#worker.terminate();
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
