import { randomUUID } from 'node:crypto';
import * as protocol from '@nbserve/core/protocol';
import type { ZmtpListener } from '@nbserve/core/zmtp';
import { type Incoming, KernelChannels } from './channels.js';
import { type ConnectionInfo, readConnectionFile, writeConnectionFile } from './connection.js';
import type { ErrorContent, FromWorker, Language } from './engine/messages.js';
import { EngineThread } from './engine-thread.js';
import { History } from './history.js';
import { kernelInfo } from './kernel-info.js';
import { UsageReporter } from './usage.js';

type Header = protocol.MessageHeader;

/** Comm messages go to the widgets of the execution thread (engine/widgets.ts). */
const COMM_TYPES = ['comm_info_request', 'comm_open', 'comm_msg', 'comm_close'];
type Content = Record<string, unknown>;

/** What the kernel remembers of an execute_request while its cell may still print. */
interface CellRequest {
  header: Header;
  identities: Uint8Array[];
  executionCount: number;
  silent: boolean;
  allowStdin: boolean;
}

/** Late output (timers, callbacks) of this many recent cells is still attributed correctly. */
const REMEMBERED_CELLS = 1000;

export interface KernelOptions {
  connectionFile: string;
  language: Language;
  /** The execution thread (default: a new one); started here once the sockets are bound. */
  engine?: EngineThread;
}

/** Requests that need the execution thread; the others are answered while it still boots. */
const NEEDS_ENGINE = new Set(['execute_request', 'complete_request', 'inspect_request', ...COMM_TYPES]);

/**
 * The protocol side of the kernel: five ZeroMQ sockets, the serial shell queue, control
 * (interrupt/shutdown answered even while a cell spins), stdin and heartbeat. User code runs
 * in the EngineThread.
 */
export class JsKernel {
  readonly session = randomUUID();
  readonly #channels: KernelChannels;
  readonly #engine: EngineThread;
  readonly #language: Language;
  readonly #history = new History();
  readonly #cells = new Map<number, CellRequest>();
  readonly #doneWaiters = new Map<number, (done: Extract<FromWorker, { type: 'done' }>) => void>();
  readonly #replyWaiters = new Map<number, (content: Content) => void>();
  readonly #usage = new UsageReporter();
  /** input_request msg_id -> the worker's pending input id. */
  readonly #inputs = new Map<string, number>();
  #shellQueue: Promise<void> = Promise.resolve();
  /** Bumped when a cell fails with stop_on_error: requests queued before that are aborted. */
  #abortEpoch = 0;
  #executionCount = 0;
  #nextCell = 1;
  #nextRequest = 1;
  #closing = false;

  private constructor(channels: KernelChannels, language: Language, engine: EngineThread) {
    this.#channels = channels;
    this.#language = language;
    this.#engine = engine;
    this.#engine.on('message', (message) => this.#fromWorker(message));
    this.#engine.on('exit', (code) => {
      if (this.#closing) return;
      process.stderr.write(`kernel-js: the execution thread exited (code ${code}); shutting down\n`);
      void this.close(1);
    });
  }

  /** Binds the sockets (writing the connection file if the launcher left the ports to us). */
  static async start(options: KernelOptions): Promise<JsKernel> {
    const { info, existed } = await readConnectionFile(options.connectionFile);
    const channels = new KernelChannels(info);
    const bound = await channels.bind();
    if (!existed || hasZeroPort(info)) await writeConnectionFile(options.connectionFile, bound);
    const kernel = new JsKernel(channels, options.language, options.engine ?? new EngineThread(options.language));
    kernel.#serve(channels.shell, (incoming) => kernel.#enqueueShell(incoming));
    kernel.#serve(channels.control, (incoming) => kernel.#control(incoming));
    kernel.#serve(channels.stdin, (incoming) => kernel.#stdin(incoming));
    void kernel.#heartbeat();
    void kernel.#welcomeSubscribers();
    // The worker boots after the sockets are bound and serving: creating it costs the main thread
    // several milliseconds, and kernel_info (static) never waits for it; executes do.
    setImmediate(() => kernel.#engine.start());
    // No parentless `status: starting`: jupyter console counts a status without parent as its own
    // and, arriving late, it left the console waiting for an idle that never came.
    return kernel;
  }

  get connection(): ConnectionInfo {
    return this.#channels.info;
  }

  async #serve(socket: ZmtpListener, handle: (incoming: Incoming) => void | Promise<void>): Promise<void> {
    try {
      for await (const frames of socket) {
        const incoming = this.#channels.decode(frames as Uint8Array[]);
        if (!incoming) {
          process.stderr.write('kernel-js: ignored a message with a bad signature or malformed frames\n');
          continue;
        }
        try {
          await handle(incoming);
        } catch (error) {
          process.stderr.write(`kernel-js: failed to handle ${incoming.message.header.msg_type}: ${error}\n`);
        }
      }
    } catch (error) {
      if (!this.#closing) process.stderr.write(`kernel-js: socket loop ended: ${error}\n`);
    }
  }

  async #heartbeat(): Promise<void> {
    const hb = this.#channels.hb;
    try {
      for await (const frames of hb) await hb.send(frames as Uint8Array[]);
    } catch {
      // closed
    }
  }

  /**
   * Protocol 5.5's `iopub_welcome`: a subscriber learns at once that its subscription is live
   * (instead of polling kernel_info until some status message happens to arrive).
   */
  async #welcomeSubscribers(): Promise<void> {
    try {
      for await (const [frame] of this.#channels.iopub) {
        if (frame?.[0] !== 1) continue;
        const subscription = Buffer.from(frame.subarray(1));
        // Sent under the subscription itself as topic, so exactly that prefix matches it.
        const welcome = this.#message('iopub_welcome', { subscription: subscription.toString('utf8') }, undefined);
        const topic = subscription.length > 0 ? subscription : Buffer.from(`kernel.${this.session}.iopub_welcome`);
        void this.#channels.send(this.#channels.iopub, welcome, [topic]);
      }
    } catch {
      // closed
    }
  }

  #message(msgType: string, content: unknown, parent: Header | undefined): protocol.JupyterMessage<unknown> {
    return protocol.createMessage(msgType, content as object, { session: this.session, parent });
  }

  #publish(msgType: string, content: unknown, parent: Header | undefined): void {
    const topic = Buffer.from(`kernel.${this.session}.${msgType}`);
    void this.#channels.send(this.#channels.iopub, this.#message(msgType, content, parent), [topic]);
  }

  #reply(socket: ZmtpListener, incoming: Incoming, content: unknown): Promise<void> {
    const type = incoming.message.header.msg_type.replace(/_request$/, '_reply');
    return this.#channels
      .send(socket, this.#message(type, content, incoming.message.header), incoming.identities)
      .then(() => {});
  }

  // --- shell ----------------------------------------------------------------------------------

  /** Shell requests run one at a time, in order, like every Jupyter kernel. */
  #enqueueShell(incoming: Incoming): void {
    const epoch = this.#abortEpoch;
    this.#shellQueue = this.#shellQueue.then(async () => {
      const parent = incoming.message.header;
      if (NEEDS_ENGINE.has(parent.msg_type)) await this.#engine.ready();
      if (this.#closing) return;
      this.#publish('status', { execution_state: 'busy' }, parent);
      try {
        if (epoch !== this.#abortEpoch && parent.msg_type === 'execute_request') {
          await this.#reply(this.#channels.shell, incoming, {
            status: 'aborted',
            execution_count: this.#executionCount,
          });
        } else await this.#shell(incoming);
      } catch (error) {
        process.stderr.write(`kernel-js: ${parent.msg_type} failed: ${error}\n`);
      } finally {
        this.#publish('status', { execution_state: 'idle' }, parent);
      }
    });
  }

  async #shell(incoming: Incoming): Promise<void> {
    const { header, content } = incoming.message;
    const shell = this.#channels.shell;
    switch (header.msg_type) {
      case 'execute_request':
        return this.#execute(incoming);
      case 'kernel_info_request':
        return this.#reply(shell, incoming, kernelInfo(this.#language));
      case 'complete_request':
      case 'inspect_request': {
        const code = typeof content.code === 'string' ? content.code : '';
        const cursorPos = Number.isInteger(content.cursor_pos) ? (content.cursor_pos as number) : [...code].length;
        const id = this.#nextRequest++;
        const reply = new Promise<Content>((resolve) => this.#replyWaiters.set(id, resolve));
        if (header.msg_type === 'complete_request') this.#engine.send({ type: 'complete', id, code, cursorPos });
        else {
          const detailLevel = content.detail_level === 1 ? 1 : 0;
          this.#engine.send({ type: 'inspect', id, code, cursorPos, detailLevel });
        }
        return this.#reply(shell, incoming, await reply);
      }
      case 'is_complete_request': {
        // The parser loads on first use: it is not needed to answer kernel_info at start.
        const { isComplete } = await import('./is-complete.js');
        return this.#reply(shell, incoming, isComplete(typeof content.code === 'string' ? content.code : ''));
      }
      case 'history_request':
        return this.#reply(shell, incoming, { status: 'ok', history: this.#history.query(content) });
      case 'comm_info_request':
      case 'comm_open':
      case 'comm_msg':
      case 'comm_close': {
        const cell = this.#nextCell++;
        const { identities } = incoming;
        this.#remember(cell, {
          header,
          identities,
          executionCount: this.#executionCount,
          silent: false,
          allowStdin: false,
        });
        const id = this.#nextRequest++;
        const reply = new Promise<Content>((resolve) => this.#replyWaiters.set(id, resolve));
        const buffers = incoming.message.buffers ?? [];
        this.#engine.send({ type: 'comm', id, cell, msgType: header.msg_type, content, buffers });
        const answer = await reply;
        if (header.msg_type === 'comm_info_request') return this.#reply(shell, incoming, answer);
        return;
      }
      case 'shutdown_request':
        return this.#shutdown(shell, incoming);
      default:
        return;
    }
  }

  async #execute(incoming: Incoming): Promise<void> {
    const { header, content } = incoming.message;
    const code = typeof content.code === 'string' ? content.code : '';
    const silent = content.silent === true;
    // As in IPython, an empty cell neither counts nor enters the history.
    const storeHistory = content.store_history !== false && !silent && code.trim() !== '';
    const stopOnError = content.stop_on_error !== false;
    if (storeHistory) this.#executionCount++;
    const executionCount = this.#executionCount;
    const cell = this.#nextCell++;
    this.#remember(cell, {
      header,
      identities: incoming.identities,
      executionCount,
      silent,
      allowStdin: content.allow_stdin !== false,
    });
    if (!silent) this.#publish('execute_input', { code, execution_count: executionCount }, header);
    if (storeHistory) this.#history.add(executionCount, code);
    const expressions =
      typeof content.user_expressions === 'object' && content.user_expressions !== null
        ? (Object.fromEntries(
            Object.entries(content.user_expressions as Content).filter(([, v]) => typeof v === 'string'),
          ) as Record<string, string>)
        : {};
    const done = new Promise<Extract<FromWorker, { type: 'done' }>>((resolve) => this.#doneWaiters.set(cell, resolve));
    this.#engine.send({ type: 'execute', cell, code, executionCount, silent, userExpressions: expressions });
    const result = await done;
    if (result.status === 'error' && result.error) {
      if (!silent) this.#publish('error', result.error, header);
      if (stopOnError) this.#abortEpoch++;
      await this.#reply(this.#channels.shell, incoming, {
        status: 'error',
        execution_count: executionCount,
        ...result.error,
      });
      return;
    }
    await this.#reply(this.#channels.shell, incoming, {
      status: 'ok',
      execution_count: executionCount,
      user_expressions: result.userExpressions,
      payload: [],
    });
  }

  #remember(cell: number, request: CellRequest): void {
    this.#cells.set(cell, request);
    if (this.#cells.size > REMEMBERED_CELLS) this.#cells.delete(this.#cells.keys().next().value as number);
  }

  #fromWorker(message: FromWorker): void {
    switch (message.type) {
      case 'done':
        this.#doneWaiters.get(message.cell)?.(message);
        this.#doneWaiters.delete(message.cell);
        return;
      case 'reply':
        this.#replyWaiters.get(message.id)?.(message.content);
        this.#replyWaiters.delete(message.id);
        return;
      case 'input_request':
        this.#requestInput(message);
        return;
      case 'ready':
      case 'interrupted':
        return;
    }
    const request = this.#cells.get(message.cell);
    const parent = request?.header;
    switch (message.type) {
      case 'stream':
        this.#publish('stream', { name: message.name, text: message.text }, parent);
        return;
      case 'display':
        this.#publish(
          message.update ? 'update_display_data' : 'display_data',
          { data: message.data, metadata: message.metadata, transient: message.transient },
          parent,
        );
        return;
      case 'clear':
        this.#publish('clear_output', { wait: message.wait }, parent);
        return;
      case 'result':
        if (request?.silent) return;
        this.#publish(
          'execute_result',
          { data: message.data, metadata: message.metadata, execution_count: request?.executionCount ?? null },
          parent,
        );
        return;
      case 'error':
        this.#publish('error', message.error satisfies ErrorContent, parent);
        return;
      case 'comm': {
        const topic = Buffer.from(`kernel.${this.session}.${message.msgType}`);
        const metadata = message.metadata ?? {};
        const outgoing = protocol.createMessage(message.msgType, message.content, {
          session: this.session,
          parent,
          metadata,
        });
        void this.#channels.send(this.#channels.iopub, outgoing, [topic]);
        return;
      }
    }
  }

  #requestInput(message: Extract<FromWorker, { type: 'input_request' }>): void {
    const request = this.#cells.get(message.cell);
    if (!request?.allowStdin) {
      this.#engine.send({
        type: 'input_cancel',
        id: message.id,
        reason: 'input() is not available: the frontend does not support input requests',
      });
      return;
    }
    const outgoing = this.#message(
      'input_request',
      { prompt: message.prompt, password: message.password },
      request.header,
    );
    this.#inputs.set(outgoing.header.msg_id, message.id);
    void this.#channels.send(this.#channels.stdin, outgoing, request.identities).then((delivered) => {
      if (delivered || !this.#inputs.delete(outgoing.header.msg_id)) return;
      this.#engine.send({ type: 'input_cancel', id: message.id, reason: 'input() failed: no frontend stdin channel' });
    });
  }

  #stdin(incoming: Incoming): void {
    const { header, parent_header, content } = incoming.message;
    if (header.msg_type !== 'input_reply') return;
    const parentId = (parent_header as Partial<Header>).msg_id ?? '';
    const id = this.#inputs.get(parentId);
    if (id === undefined) return;
    this.#inputs.delete(parentId);
    this.#engine.send({ type: 'input_reply', id, value: typeof content.value === 'string' ? content.value : '' });
  }

  // --- control --------------------------------------------------------------------------------

  async #control(incoming: Incoming): Promise<void> {
    const parent = incoming.message.header;
    const control = this.#channels.control;
    this.#publish('status', { execution_state: 'busy' }, parent);
    try {
      switch (parent.msg_type) {
        case 'kernel_info_request':
          await this.#reply(control, incoming, kernelInfo(this.#language));
          break;
        case 'interrupt_request':
          await this.interrupt();
          await this.#reply(control, incoming, { status: 'ok' });
          break;
        case 'shutdown_request':
          await this.#shutdown(control, incoming);
          break;
        case 'debug_request':
          await this.#reply(control, incoming, {});
          break;
        case 'usage_request':
          await this.#reply(control, incoming, this.#usage.reply());
          break;
        default:
          break;
      }
    } finally {
      this.#publish('status', { execution_state: 'idle' }, parent);
    }
  }

  /** Stops the running cell (a busy loop or a pending await); queued cells are aborted. */
  async interrupt(): Promise<void> {
    this.#inputs.clear();
    await this.#engine.interrupt();
  }

  async #shutdown(socket: ZmtpListener, incoming: Incoming): Promise<void> {
    const restart = incoming.message.content.restart === true;
    await this.#reply(socket, incoming, { status: 'ok', restart });
    this.#publish('shutdown_reply', { status: 'ok', restart }, incoming.message.header);
    // The launcher restarts us if asked to: a kernel always exits on shutdown_request.
    setTimeout(() => void this.close(0), 20);
  }

  async close(code = 0): Promise<never> {
    this.#closing = true;
    await this.#engine.terminate().catch(() => {});
    this.#channels.close();
    process.exit(code);
  }
}

function hasZeroPort(info: ConnectionInfo): boolean {
  return [info.shell_port, info.iopub_port, info.stdin_port, info.control_port, info.hb_port].includes(0);
}
