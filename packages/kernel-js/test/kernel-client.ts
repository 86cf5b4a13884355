import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import * as protocol from '@nbserve/core/protocol';
import * as zmq from 'zeromq';
import { makeTempDir } from '../../../testing/temp.js';
import { waitFor, within } from '../../../testing/wait.js';
import { kernelArgv } from '../src/kernelspecs.js';

export type Message = protocol.JupyterMessage<Record<string, unknown>>;

export interface ExecuteResult {
  reply: Message;
  /** iopub messages whose parent is the request, up to and including its `idle` status. */
  iopub: Message[];
}

/** Argv running the kernel from source, exactly as the source-mode kernelspec does. */
export function sourceArgv(connectionFile: string, language: 'javascript' | 'typescript' = 'javascript'): string[] {
  return kernelArgv(language, { mode: 'source' }).map((a) => (a === '{connection_file}' ? connectionFile : a));
}

/**
 * A minimal Jupyter client over ZeroMQ using nbserve's protocol module: DEALERs for shell,
 * control and stdin sharing one identity, a SUB on iopub and a REQ heartbeat.
 */
export class KernelClient {
  readonly session = randomUUID();
  readonly shell = new zmq.Dealer();
  readonly control = new zmq.Dealer();
  readonly stdin = new zmq.Dealer();
  readonly iopub = new zmq.Subscriber();
  readonly received: Message[] = [];
  readonly stdinRequests: Message[] = [];
  readonly signer: protocol.Signer;
  readonly #replies = new Map<string, (m: Message) => void>();
  readonly #iopubWaiters: (() => void)[] = [];
  onInputRequest: ((m: Message) => string | undefined) | undefined;

  constructor(
    readonly info: Record<string, unknown> & { key: string; ip: string },
    readonly child?: ChildProcess,
  ) {
    this.signer = new protocol.Signer(info.key, (info.signature_scheme as string) ?? 'hmac-sha256');
    const identity = Buffer.from(this.session);
    for (const s of [this.shell, this.control, this.stdin]) {
      s.routingId = identity.toString();
      s.linger = 0;
    }
    this.iopub.linger = 0;
    const url = (port: unknown) => `tcp://${info.ip}:${port}`;
    this.shell.connect(url(info.shell_port));
    this.control.connect(url(info.control_port));
    this.stdin.connect(url(info.stdin_port));
    this.iopub.connect(url(info.iopub_port));
    this.iopub.subscribe('');
    void this.#pump(this.shell);
    void this.#pump(this.control);
    void this.#pumpStdin();
    void this.#pumpIopub();
  }

  static async launch(
    options: {
      language?: 'javascript' | 'typescript';
      cwd?: string;
      env?: NodeJS.ProcessEnv;
      argv?: (file: string) => string[];
    } = {},
  ) {
    const dir = await makeTempDir('kernel-js-test-');
    const file = path.join(dir, 'kernel.json');
    const argv = options.argv ? options.argv(file) : sourceArgv(file, options.language);
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: options.cwd ?? dir,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'inherit', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    // The kernel chooses its own ports and writes the connection file.
    let info: Record<string, unknown> | undefined;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`kernel did not start: ${stderr}`);
        const parsed = JSON.parse(await readFile(file, 'utf8').catch(() => '{}'));
        if (parsed.shell_port) info = parsed;
        return info !== undefined;
      },
      { intervalMs: 20, what: `the connection file (kernel stderr: ${stderr})` },
    );
    const client = new KernelClient(info as KernelClient['info'], child);
    client.dir = dir;
    client.stderr = () => stderr;
    return client;
  }

  dir = '';
  stderr: () => string = () => '';

  #sign(msg: protocol.JupyterMessage<unknown>): Uint8Array[] {
    return protocol.encodeWire(protocol.toRaw(msg), this.signer);
  }

  async #pump(socket: zmq.Dealer) {
    try {
      for await (const frames of socket) {
        const wire = protocol.decodeWire(frames as Uint8Array[]);
        if (!this.signer.verify(wire.signature, wire.raw)) throw new Error('kernel sent a bad signature');
        const msg = protocol.fromRaw(wire.raw) as Message;
        const parentId = (msg.parent_header as protocol.MessageHeader).msg_id;
        this.#replies.get(parentId)?.(msg);
        this.#replies.delete(parentId);
      }
    } catch {
      // closed
    }
  }

  async #pumpStdin() {
    try {
      for await (const frames of this.stdin) {
        const wire = protocol.decodeWire(frames as Uint8Array[]);
        const msg = protocol.fromRaw(wire.raw) as Message;
        this.stdinRequests.push(msg);
        const answer = this.onInputRequest?.(msg);
        if (answer !== undefined) {
          await this.stdin.send(
            this.#sign(
              protocol.createMessage('input_reply', { value: answer }, { session: this.session, parent: msg.header }),
            ),
          );
        }
      }
    } catch {
      // closed
    }
  }

  async #pumpIopub() {
    try {
      for await (const frames of this.iopub) {
        const wire = protocol.decodeWire(frames as Uint8Array[]);
        if (!this.signer.verify(wire.signature, wire.raw)) throw new Error('kernel sent a bad iopub signature');
        this.received.push(protocol.fromRaw(wire.raw) as Message);
        for (const wake of this.#iopubWaiters.splice(0)) wake();
      }
    } catch {
      // closed
    }
  }

  /** Waits until the iopub subscription is live (a kernel_info round trip publishes status). */
  async ready(timeoutMs = 30_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const header = protocol.createHeader('kernel_info_request', { session: this.session });
      const reply = this.#waitReply(header.msg_id, 500);
      await this.shell.send(this.#sign({ header, parent_header: {}, metadata: {}, content: {}, buffers: [] }));
      const got = await reply.catch(() => undefined);
      if (got && this.received.some((m) => (m.parent_header as protocol.MessageHeader).msg_id === header.msg_id)) {
        return got;
      }
      if (Date.now() > deadline) throw new Error(`kernel not ready: ${this.stderr()}`);
    }
  }

  #waitReply(msgId: string, timeoutMs: number): Promise<Message> {
    const reply = new Promise<Message>((resolve) => this.#replies.set(msgId, resolve));
    return within(reply, timeoutMs, `the reply to ${msgId}`).finally(() => this.#replies.delete(msgId));
  }

  /** Sends a request; resolves with the reply (and the iopub messages up to its idle). */
  async request(
    channel: 'shell' | 'control',
    msgType: string,
    content: Record<string, unknown>,
    timeoutMs = 30_000,
  ): Promise<ExecuteResult> {
    const msg = protocol.createMessage(msgType, content, { session: this.session, username: 'test' });
    const reply = this.#waitReply(msg.header.msg_id, timeoutMs);
    await (channel === 'shell' ? this.shell : this.control).send(this.#sign(msg));
    const got = await reply;
    const iopub = await this.iopubUntilIdle(msg.header.msg_id, timeoutMs);
    return { reply: got, iopub };
  }

  /** Sends without waiting; returns the msg_id. */
  async send(channel: 'shell' | 'control', msgType: string, content: Record<string, unknown>): Promise<string> {
    const msg = protocol.createMessage(msgType, content, { session: this.session });
    this.pending.set(msg.header.msg_id, this.#waitReply(msg.header.msg_id, 60_000));
    await (channel === 'shell' ? this.shell : this.control).send(this.#sign(msg));
    return msg.header.msg_id;
  }

  readonly pending = new Map<string, Promise<Message>>();

  async sendRawFrames(frames: Uint8Array[]): Promise<void> {
    await this.shell.send(frames);
  }

  sign(msg: protocol.JupyterMessage<unknown>): Uint8Array[] {
    return this.#sign(msg);
  }

  execute(code: string, content: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<ExecuteResult> {
    return this.request(
      'shell',
      'execute_request',
      {
        code,
        silent: false,
        store_history: true,
        user_expressions: {},
        allow_stdin: true,
        stop_on_error: true,
        ...content,
      },
      timeoutMs,
    );
  }

  async iopubUntilIdle(msgId: string, timeoutMs = 30_000): Promise<Message[]> {
    const isIdle = (m: Message) => m.header.msg_type === 'status' && m.content.execution_state === 'idle';
    return await within(this.#iopubUntil(msgId, isIdle), timeoutMs, `idle for ${msgId}`);
  }

  /** Resolves once the kernel published a `msgType` message for request `msgId` (e.g. `execute_input`: it runs). */
  async iopubOf(msgId: string, msgType: string, timeoutMs = 30_000): Promise<Message> {
    const mine = await within(
      this.#iopubUntil(msgId, (m) => m.header.msg_type === msgType),
      timeoutMs,
      `${msgType} for ${msgId}`,
    );
    return mine.find((m) => m.header.msg_type === msgType) as Message;
  }

  /** The iopub messages for request `msgId`, once one of them matches `done`. */
  async #iopubUntil(msgId: string, done: (m: Message) => boolean): Promise<Message[]> {
    for (;;) {
      const mine = this.received.filter((m) => (m.parent_header as protocol.MessageHeader).msg_id === msgId);
      if (mine.some(done)) return mine;
      await new Promise<void>((resolve) => this.#iopubWaiters.push(resolve));
    }
  }

  async close(): Promise<void> {
    for (const s of [this.shell, this.control, this.stdin, this.iopub]) s.close();
    if (this.child && this.child.exitCode === null && this.child.pid) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

/** Text of all stream messages of one name. */
export function streamText(messages: Message[], name = 'stdout'): string {
  return messages
    .filter((m) => m.header.msg_type === 'stream' && m.content.name === name)
    .map((m) => m.content.text as string)
    .join('');
}

export function ofType(messages: Message[], type: string): Message[] {
  return messages.filter((m) => m.header.msg_type === type);
}

/** Removes ANSI colour codes from traceback lines. */
export function plain(lines: unknown): string {
  return stripVTControlCharacters((lines as string[]).join('\n'));
}
