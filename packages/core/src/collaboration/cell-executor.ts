import { randomUUID } from 'node:crypto';
import { badRequest, conflict, notFound } from '../errors.js';
import { adoptedCell } from '../kernels/adoption.js';
import { CELL_EXECUTOR_SESSION } from '../kernels/cell-run.js';
import type { KernelClient } from '../kernels/client.js';
import type { Kernel } from '../kernels/kernel.js';
import type { KernelManager } from '../kernels/manager.js';
import { createMessage } from '../protocol/header.js';
import { fromRaw, parsePart, toRaw } from '../protocol/json-parts.js';
import type { MessageHeader, RawMessage } from '../protocol/types.js';
import { isObject } from '../util/is-object.js';
import type { CollaborationManager } from './manager.js';
import { type DisplayIndex, findCodeCell, OutputWriter } from './output-writer.js';

export type ExecutionStatus = 'queued' | 'running' | 'ok' | 'error' | 'aborted';

/** One cell run the server owns, as `GET /api/kernels/<id>/requests/<request_id>` shows it. */
export interface ExecutionRequest {
  request_id: string;
  kernel_id: string;
  document_id: string;
  cell_id: string;
  status: ExecutionStatus;
  execution_count: number | null;
  /** The cell's outputs when the run ended (while it runs: read the shared document). */
  outputs: unknown[];
  /** The error's name and value when `status` is `error` or `aborted`. */
  ename?: string;
  evalue?: string;
  /** While the code waits in `input()` / `getpass()`: the kernel's prompt (docs/collaboration.md). */
  input_request?: InputRequest;
}

export interface InputRequest {
  prompt: string;
  password: boolean;
}

/** A run's unanswered input_request: where to send the answer and where to echo it. */
interface PendingInput {
  kernel: Kernel;
  header: MessageHeader;
  writer: OutputWriter;
}

interface Queued {
  request: ExecutionRequest;
  code: string | undefined;
}

const KEEP_FINISHED = 1000;
/** How long a resumed run waits for its reply once its kernel went idle. */
const LOST_REPLY_GRACE_MS = 2000;

/**
 * Runs cells of shared notebooks on kernels, server-side: each kernel has a queue, run in order,
 * whether or not any client is connected; outputs, the execution count and the running state go
 * into the shared document as they arrive (and so to its file, at the next save). When a cell
 * fails, the cells queued behind it on that kernel are aborted, as a kernel's `stop_on_error` does.
 */
export class CellExecutor {
  readonly #kernels: KernelManager;
  readonly #collaboration: CollaborationManager;
  readonly #queues = new Map<string, Queued[]>();
  readonly #running = new Set<string>();
  readonly #requests = new Map<string, ExecutionRequest>();
  readonly #clients = new Map<string, KernelClient>();
  readonly #displays = new Map<string, DisplayIndex>();
  readonly #cellDisplays = new Map<string, Map<string, Array<string | undefined>>>();
  readonly #session = randomUUID();
  /** execute_reply handlers by the request's msg_id. */
  readonly #replies = new Map<string, (content: Record<string, unknown>) => void>();
  /** input_request handlers by the execute request's msg_id. */
  readonly #stdin = new Map<string, (header: MessageHeader, content: Record<string, unknown>) => void>();
  /** Unanswered input_requests by request id. */
  readonly #inputs = new Map<string, PendingInput>();

  constructor(kernels: KernelManager, collaboration: CollaborationManager) {
    this.#kernels = kernels;
    this.#collaboration = collaboration;
    kernels.onRemoved((kernelId) => {
      this.#clients.get(kernelId)?.close();
      this.#clients.delete(kernelId);
      this.#abortQueue(kernelId, 'Kernel is gone');
    });
  }

  /** Queues a cell run; `code` defaults to the cell's source in the shared document when it starts. */
  async execute(kernelId: string, documentId: string, cellId: string, code?: string): Promise<ExecutionRequest> {
    this.#kernels.get(kernelId); // 404 for an unknown kernel
    const room = await this.#collaboration.room(documentId);
    const notebook = room.document.notebook;
    if (!notebook) throw badRequest(`Not a notebook: ${documentId}`);
    if (!findCodeCell(notebook, cellId)) throw notFound(`No code cell ${cellId} in ${documentId}`);
    const request: ExecutionRequest = {
      request_id: randomUUID(),
      kernel_id: kernelId,
      document_id: documentId,
      cell_id: cellId,
      status: 'queued',
      execution_count: null,
      outputs: [],
    };
    this.#requests.set(request.request_id, request);
    this.#prune();
    const queue = this.#queues.get(kernelId) ?? [];
    this.#queues.set(kernelId, queue);
    queue.push({ request, code });
    void this.#drain(kernelId);
    return request;
  }

  get(kernelId: string, requestId: string): ExecutionRequest {
    const request = this.#requests.get(requestId);
    if (!request || request.kernel_id !== kernelId) throw notFound(`Unknown request: ${requestId.slice(0, 80)}`);
    return request;
  }

  /**
   * Answers a run's pending `input()` with `value` (an input_reply on the kernel's stdin) and
   * echoes the prompt and the answer (masked for a password) into the cell, as the page does.
   */
  answer(kernelId: string, requestId: string, value: string): void {
    const request = this.get(kernelId, requestId);
    const pending = this.#inputs.get(requestId);
    const prompt = request.input_request;
    if (!pending || !prompt) throw conflict(`Request ${requestId.slice(0, 80)} is not waiting for input`);
    this.#inputs.delete(requestId);
    delete request.input_request;
    pending.writer.inputRequest(undefined);
    pending.writer.handle('stream', {
      name: 'stdout',
      text: `${prompt.prompt}${prompt.password ? '········' : value}\n`,
    });
    const reply = createMessage(
      'input_reply',
      { value },
      { session: this.#session, username: 'nbserve', parent: pending.header },
    );
    this.#client(pending.kernel).send('stdin', toRaw(reply));
  }

  close(): void {
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
    for (const kernelId of [...this.#queues.keys()]) this.#abortQueue(kernelId, 'Server shutting down');
  }

  async #drain(kernelId: string): Promise<void> {
    if (this.#running.has(kernelId)) return;
    this.#running.add(kernelId);
    try {
      for (let next = this.#queues.get(kernelId)?.shift(); next; next = this.#queues.get(kernelId)?.shift()) {
        await this.#run(kernelId, next);
        if (next.request.status === 'error') this.#abortQueue(kernelId, 'An earlier cell failed');
      }
    } finally {
      this.#running.delete(kernelId);
    }
  }

  async #run(kernelId: string, { request, code }: Queued): Promise<void> {
    let kernel: Kernel;
    try {
      kernel = this.#kernels.get(kernelId);
    } catch {
      return finish(request, 'aborted', 'Kernel is gone');
    }
    const room = await this.#collaboration.room(request.document_id).catch(() => undefined);
    const notebook = room?.document.notebook;
    if (!room || !notebook) return finish(request, 'aborted', 'Document is gone');
    const release = room.hold();
    try {
      const writer = new OutputWriter(
        notebook,
        request.cell_id,
        this.#mapFor(this.#displays, request.document_id),
        this.#mapFor(this.#cellDisplays, request.document_id),
      );
      const cell = writer.cell();
      if (!cell) return finish(request, 'aborted', 'Cell is gone');
      request.status = 'running';
      writer.start();
      const reply = await this.#send(kernel, code ?? cell.getSource(), writer, request);
      request.execution_count = reply.executionCount;
      writer.finish(reply.executionCount);
      request.outputs = writer.cell()?.getOutputs() ?? [];
      finish(request, reply.status, reply.ename, reply.evalue);
    } finally {
      release();
    }
  }

  /** Sends an execute_request and feeds its iopub messages to `writer` until the reply and idle came. */
  #send(kernel: Kernel, code: string, writer: OutputWriter, request: ExecutionRequest): Promise<Reply> {
    const client = this.#client(kernel);
    const message = createMessage(
      'execute_request',
      { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: true, stop_on_error: true },
      { session: this.#session, username: 'nbserve' },
    );
    const msgId = message.header.msg_id;
    // Kept in a persisted kernel's record while it runs, so a later server goes on writing its outputs.
    kernel.cellRuns.set(msgId, {
      documentId: request.document_id,
      cellId: request.cell_id,
      requestId: request.request_id,
    });
    const reply = this.#follow(kernel, msgId, writer, request);
    client.send('shell', toRaw(message));
    return reply.finally(() => kernel.cellRuns.delete(msgId));
  }

  /**
   * A cell run an earlier server started on a kernel adopted from it (`--persist-kernels`): its
   * client is taken back under its routing id and what the cell still outputs, and its reply, go
   * into the shared document as for a run started here.
   */
  async resume(kernel: Kernel): Promise<void> {
    // As adopted: the kernel's own `execution` is cleared once the cell is known to have ended.
    const cell = adoptedCell(kernel);
    const run = cell?.execution.cell;
    const [adopted] = kernel.takeAdoptedClients((id) => id === CELL_EXECUTOR_SESSION);
    if (!cell || !run) {
      adopted?.client.close();
      return;
    }
    const msgId = cell.execution.msgId;
    const request: ExecutionRequest = {
      request_id: run.requestId,
      kernel_id: kernel.id,
      document_id: run.documentId,
      cell_id: run.cellId,
      status: 'running',
      execution_count: null,
      outputs: [],
    };
    const room = await this.#collaboration.room(run.documentId).catch(() => undefined);
    // Listed once followed: from then on no output of the cell misses the document.
    this.#requests.set(request.request_id, request);
    const notebook = room?.document.notebook;
    if (!room || !notebook) return finish(request, 'aborted', 'Document is gone');
    const release = room.hold();
    try {
      const writer = new OutputWriter(notebook, run.cellId, this.#mapFor(this.#displays, run.documentId), new Map());
      if (adopted) this.#clients.set(kernel.id, this.#wire(adopted.client));
      const reply = this.#follow(kernel, msgId, writer, request, cell.ended);
      for (const [channel, raw] of adopted?.received ?? []) adopted?.client.onMessage(channel, raw);
      const answer = await reply;
      request.execution_count = answer.executionCount;
      writer.finish(answer.executionCount);
      request.outputs = writer.cell()?.getOutputs() ?? [];
      finish(request, answer.status, answer.ename, answer.evalue);
    } finally {
      release();
    }
  }

  /** Feeds the iopub messages of the request `msgId` to `writer` until its reply and idle came. */
  #follow(
    kernel: Kernel,
    msgId: string,
    writer: OutputWriter,
    request: ExecutionRequest,
    /** A resumed run: settles once the cell has ended (adoption.ts). */
    resumed?: Promise<void>,
  ): Promise<Reply> {
    return new Promise<Reply>((resolve) => {
      let reply: Reply | undefined;
      let idle = false;
      // A resumed run's reply may have gone out while no server was connected: iopub tells the rest.
      const seen: Reply = { status: 'ok', executionCount: null };
      const done = () => {
        if (!idle) return;
        if (!reply && resumed)
          setTimeout(() => {
            reply ??= seen;
            done();
          }, LOST_REPLY_GRACE_MS).unref();
        if (!reply) return;
        stopIopub();
        stopLifecycle();
        this.#replies.delete(msgId);
        this.#stdin.delete(msgId);
        // Interrupted or restarted while waiting for input: nothing is left to answer.
        this.#inputs.delete(request.request_id);
        delete request.input_request;
        writer.inputRequest(undefined);
        resolve(reply);
      };
      // A resumed run that ended while no server listened (or before this listened): its idle is lost.
      void resumed?.then(() => {
        if (!idle) {
          idle = true;
          done();
        }
      });
      const stopIopub = kernel.onIopub((raw, msgType) => {
        if (parentId(raw) !== msgId) return;
        const content = parsePart(raw.content);
        if (!isObject(content)) return;
        if (msgType === 'status') {
          if (content.execution_state === 'idle' && !idle) {
            idle = true;
            done();
          }
          return;
        }
        if (typeof content.execution_count === 'number') seen.executionCount = content.execution_count;
        if (msgType === 'error') Object.assign(seen, { status: 'error', ename: content.ename, evalue: content.evalue });
        writer.handle(msgType, content);
      });
      const stopLifecycle = kernel.onLifecycle((event) => {
        reply ??= { status: 'aborted', executionCount: null, ename: 'KernelRestarted', evalue: `Kernel ${event}` };
        idle = true;
        done();
      });
      this.#replies.set(msgId, (content) => {
        const status = content.status === 'ok' ? 'ok' : content.status === 'aborted' ? 'aborted' : 'error';
        const count = typeof content.execution_count === 'number' ? content.execution_count : null;
        reply = { status, executionCount: count };
        if (typeof content.ename === 'string') reply.ename = content.ename;
        if (typeof content.evalue === 'string') reply.evalue = content.evalue;
        done();
      });
      this.#stdin.set(msgId, (header, content) => {
        request.input_request = { prompt: String(content.prompt ?? ''), password: content.password === true };
        this.#inputs.set(request.request_id, { kernel, header, writer });
        writer.inputRequest({ request_id: request.request_id, kernel_id: kernel.id, ...request.input_request });
      });
    });
  }

  #client(kernel: Kernel): KernelClient {
    let client = this.#clients.get(kernel.id);
    if (!client || client.closed) {
      client = this.#wire(kernel.createClient(undefined, CELL_EXECUTOR_SESSION));
      this.#clients.set(kernel.id, client);
    }
    return client;
  }

  /** Routes a client's replies and input requests to the runs waiting for them. */
  #wire(client: KernelClient): KernelClient {
    client.onMessage = (channel, raw) => {
      const message = fromRaw(raw);
      const parent = String(message.parent_header.msg_id ?? '');
      if (channel === 'stdin' && message.header.msg_type === 'input_request') {
        this.#stdin.get(parent)?.(message.header, message.content);
        return;
      }
      if (channel !== 'shell') return;
      const handler = this.#replies.get(parent);
      if (handler && message.header.msg_type === 'execute_reply') handler(message.content);
    };
    return client;
  }

  #abortQueue(kernelId: string, why: string): void {
    const queue = this.#queues.get(kernelId) ?? [];
    this.#queues.delete(kernelId);
    for (const { request } of queue) finish(request, 'aborted', 'Aborted', why);
  }

  #mapFor<V>(maps: Map<string, Map<string, V>>, documentId: string): Map<string, V> {
    const map = maps.get(documentId) ?? new Map<string, V>();
    maps.set(documentId, map);
    return map;
  }

  #prune(): void {
    if (this.#requests.size <= KEEP_FINISHED) return;
    for (const [id, request] of this.#requests) {
      if (this.#requests.size <= KEEP_FINISHED) break;
      if (request.status !== 'queued' && request.status !== 'running') this.#requests.delete(id);
    }
  }
}

interface Reply {
  status: 'ok' | 'error' | 'aborted';
  executionCount: number | null;
  ename?: string;
  evalue?: string;
}

function finish(request: ExecutionRequest, status: ExecutionStatus, ename?: string, evalue?: string): void {
  request.status = status;
  if (ename !== undefined) request.ename = ename;
  if (evalue !== undefined) request.evalue = evalue;
}

function parentId(raw: RawMessage): string | undefined {
  const parent = parsePart(raw.parentHeader);
  return isObject(parent) && typeof parent.msg_id === 'string' ? parent.msg_id : undefined;
}
