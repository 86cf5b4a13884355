import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { executeContent, type Message, makeMessage } from './jupyter-message.js';
import type { KernelClient } from './kernel-client.js';
import { requestUntilReply } from './zmq-client.js';

export const V1_PROTOCOL = 'v1.kernel.websocket.jupyter.org';

/**
 * A kernel channels WebSocket client that behaves like @jupyterlab/services 7: it offers the v1
 * subprotocol and speaks whatever the server selects (v1 binary, or the JSON framing when the
 * server answers with no subprotocol, as jupyter_server 1.x does).
 */
export class WsKernelClient implements KernelClient {
  private readonly listeners = new Set<(message: Message) => void>();

  /** `session` is both the URL's `session_id` and the header's `session`, as in JupyterLab. */
  private constructor(
    private readonly socket: WebSocket,
    readonly session: string,
  ) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      const message = !isBinary
        ? (JSON.parse(data.toString('utf8')) as Message)
        : this.protocol === V1_PROTOCOL
          ? decodeV1(data)
          : decodeLegacyBinary(data);
      for (const listener of this.listeners) listener(message);
    });
  }

  get protocol(): string {
    return this.socket.protocol;
  }

  static async connect(origin: string, token: string, kernelId: string, offerV1 = true): Promise<WsKernelClient> {
    const session = randomUUID();
    const url = `${origin.replace(/^http/, 'ws')}/api/kernels/${kernelId}/channels?session_id=${session}`;
    const socket = new WebSocket(url, offerV1 ? [V1_PROTOCOL] : [], {
      headers: { authorization: `token ${token}` },
      perMessageDeflate: false,
      maxPayload: 1024 * 1024 * 1024,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`WebSocket upgrade -> ${res.statusCode}`)));
    });
    return new WsKernelClient(socket, session);
  }

  onMessage(listener: (message: Message) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async send(channel: 'shell' | 'control', msgType: string, content: Record<string, unknown>): Promise<Message> {
    const message = makeMessage(msgType, content, this.session);
    const frame = this.protocol === V1_PROTOCOL ? encodeV1(channel, message) : JSON.stringify({ ...message, channel });
    await new Promise<void>((resolve, reject) =>
      this.socket.send(frame, (error) => (error ? reject(error) : resolve())),
    );
    return message;
  }

  async kernelInfo(timeoutMs = 60_000): Promise<void> {
    await requestUntilReply(this, 'kernel_info_request', timeoutMs);
  }

  /**
   * What JupyterLab's kernel connection does on every (re)connect: one `kernel_info_request`, then
   * wait for its reply and an iopub message (the server opens a client's kernel sockets only once
   * the kernel answers, so nothing is lost). `kernelInfo` instead resends every 100 ms, which a
   * server that accepts the WebSocket before the kernel is up gets ten times a second per kernel.
   */
  async kernelInfoOnce(timeoutMs = 60_000): Promise<void> {
    let off = () => {};
    let timer: NodeJS.Timeout | undefined;
    let closed = () => {};
    try {
      await new Promise<void>((resolve, reject) => {
        // a socket the server closes gets no answer: fail at once, so the caller can reconnect
        closed = () => reject(new Error('the server closed the WebSocket before kernel_info_reply'));
        this.socket.once('close', closed);
        let id = '';
        const replies = new Set<string>();
        let iopubSeen = false;
        const check = () => {
          if (id && replies.has(id) && iopubSeen) resolve();
        };
        off = this.onMessage((m) => {
          if (m.channel === 'iopub') iopubSeen = true;
          if (m.header.msg_type === 'kernel_info_reply') replies.add(String(m.parent_header.msg_id));
          check();
        });
        timer = setTimeout(() => reject(new Error(`no kernel_info_reply within ${timeoutMs} ms`)), timeoutMs);
        this.send('shell', 'kernel_info_request', {}).then((m) => {
          id = m.header.msg_id;
          check();
        }, reject);
      });
    } finally {
      clearTimeout(timer);
      off();
      this.socket.off('close', closed);
    }
  }

  async execute(code: string): Promise<Message> {
    return await this.send('shell', 'execute_request', executeContent(code));
  }

  /** False once the server (or we) closed the socket. */
  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  close(): void {
    this.socket.close();
  }
}

function encodeV1(channel: string, message: Message): Buffer {
  const parts = [
    Buffer.from(channel),
    ...[message.header, message.parent_header, message.metadata, message.content].map((p) =>
      Buffer.from(JSON.stringify(p)),
    ),
  ];
  const count = parts.length + 1;
  const head = Buffer.alloc(8 * (count + 1));
  head.writeBigUInt64LE(BigInt(count), 0);
  let offset = head.length;
  for (let i = 0; i <= parts.length; i++) {
    head.writeBigUInt64LE(BigInt(offset), 8 * (i + 1));
    offset += parts[i]?.length ?? 0;
  }
  return Buffer.concat([head, ...parts]);
}

function decodeV1(data: Buffer): Message {
  const count = Number(data.readBigUInt64LE(0));
  const offsets: number[] = [];
  for (let i = 0; i < count; i++) offsets.push(Number(data.readBigUInt64LE(8 * (i + 1))));
  const item = (i: number) => data.subarray(offsets[i], offsets[i + 1]);
  const json = (i: number) => JSON.parse(item(i).toString('utf8'));
  const buffers: Buffer[] = [];
  for (let i = 5; i < count - 1; i++) buffers.push(item(i));
  return {
    channel: item(0).toString('utf8'),
    header: json(1),
    parent_header: json(2),
    metadata: json(3),
    content: json(4),
    buffers,
  };
}

function decodeLegacyBinary(data: Buffer): Message {
  const count = data.readUInt32BE(0);
  const offsets: number[] = [];
  for (let i = 0; i < count; i++) offsets.push(data.readUInt32BE(4 * (i + 1)));
  const message = JSON.parse(data.subarray(offsets[0], offsets[1]).toString('utf8')) as Message;
  message.buffers = offsets.slice(1).map((start, i) => data.subarray(start, offsets[i + 2]));
  return message;
}
