import { randomUUID } from 'node:crypto';
import { Dealer, Subscriber } from 'zeromq';
import { decodeZmq, encodeZmq, executeContent, type Message, makeMessage } from './jupyter-message.js';
import type { KernelClient } from './kernel-client.js';

export interface ConnectionInfo {
  ip: string;
  transport: string;
  key: string;
  signature_scheme: string;
  shell_port: number;
  iopub_port: number;
  stdin_port: number;
  control_port: number;
  hb_port: number;
}

const RETRY_MS = 5;

/** The floor: a direct ZeroMQ client on a kernel, with nothing in between. */
export class ZmqKernelClient implements KernelClient {
  readonly session = randomUUID();
  // A client that connects before the kernel has bound its ports is refused; libzmq's default
  // 100 ms (+ up to 100 ms random) retry would then be measured as kernel start time.
  private readonly shell = new Dealer({ routingId: this.session, reconnectInterval: RETRY_MS });
  private readonly control = new Dealer({ routingId: this.session, reconnectInterval: RETRY_MS });
  private readonly iopub = new Subscriber({ reconnectInterval: RETRY_MS });
  private readonly listeners = new Set<(message: Message) => void>();
  private closed = false;
  private readonly pending: Record<'shell' | 'control', Promise<unknown>> = {
    shell: Promise.resolve(),
    control: Promise.resolve(),
  };

  private constructor(private readonly info: ConnectionInfo) {
    // floods must not be dropped by ZMQ's default high-water marks
    this.iopub.receiveHighWaterMark = 0;
    this.shell.receiveHighWaterMark = 0;
  }

  static async connect(info: ConnectionInfo): Promise<ZmqKernelClient> {
    const client = new ZmqKernelClient(info);
    const url = (port: number) => `${info.transport}://${info.ip}:${port}`;
    client.shell.connect(url(info.shell_port));
    client.control.connect(url(info.control_port));
    client.iopub.connect(url(info.iopub_port));
    client.iopub.subscribe();
    client.pump(client.shell, 'shell');
    client.pump(client.control, 'control');
    client.pump(client.iopub, 'iopub');
    return client;
  }

  private pump(socket: Dealer | Subscriber, channel: string): void {
    void (async () => {
      try {
        for await (const frames of socket) {
          const message = decodeZmq(frames as Buffer[]);
          message.channel = channel;
          for (const listener of this.listeners) listener(message);
        }
      } catch (error) {
        if (!this.closed) throw error;
      }
    })();
  }

  onMessage(listener: (message: Message) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async send(channel: 'shell' | 'control', msgType: string, content: Record<string, unknown>): Promise<Message> {
    const message = makeMessage(msgType, content, this.session);
    const socket = channel === 'shell' ? this.shell : this.control;
    // zeromq 6 rejects a send while the previous one on the socket is pending ("Socket is busy
    // writing"), e.g. a DEALER whose kernel has not bound yet: sends on a socket go one at a time.
    const previous = this.pending[channel];
    const sent = previous.then(() => socket.send(encodeZmq(message, this.info.key)));
    this.pending[channel] = sent.catch(() => undefined);
    await sent;
    return message;
  }

  async kernelInfo(timeoutMs = 30_000): Promise<void> {
    await requestUntilReply(this, 'kernel_info_request', timeoutMs);
  }

  async execute(code: string): Promise<Message> {
    return await this.send('shell', 'execute_request', executeContent(code));
  }

  close(): void {
    this.closed = true;
    this.shell.close();
    this.control.close();
    this.iopub.close();
  }
}

/**
 * Sends `msgType` (kernel_info_request) every 100 ms until a reply has arrived *and* some iopub
 * message has been seen: a kernel still binding its sockets drops requests, and a SUB socket
 * misses everything published before its subscription reaches the kernel (ZeroMQ's "slow
 * joiner"), which would lose the first messages of the next cell.
 */
export async function requestUntilReply(client: KernelClient, msgType: string, timeoutMs: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const ids = new Set<string>();
    const replyType = msgType.replace(/_request$/, '_reply');
    let replied = false;
    let iopubSeen = false;
    const off = client.onMessage((m) => {
      if (m.channel === 'iopub') iopubSeen = true;
      if (m.header.msg_type === replyType && ids.has(String(m.parent_header.msg_id))) replied = true;
      if (replied && iopubSeen) finish();
    });
    // One request in flight at a time: a kernel that has not bound its shell yet holds the send.
    let sending = false;
    const resend = () => {
      if (sending) return;
      sending = true;
      void client.send('shell', msgType, {}).then((m) => {
        sending = false;
        ids.add(m.header.msg_id);
      }, fail);
    };
    const interval = setInterval(resend, 100);
    const timer = setTimeout(() => fail(new Error(`no ${replyType} within ${timeoutMs} ms`)), timeoutMs);
    function finish() {
      clearInterval(interval);
      clearTimeout(timer);
      off();
      resolve();
    }
    function fail(error: unknown) {
      clearInterval(interval);
      clearTimeout(timer);
      off();
      reject(error);
    }
    resend();
  });
}
