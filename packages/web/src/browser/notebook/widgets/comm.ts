import type { ICallbacks, IClassicComm } from '@jupyter-widgets/base';
import type { KernelConnection } from '../kernel.js';
import { type KernelMessage, makeMessage } from '../messages.js';

type Json = Parameters<IClassicComm['send']>[0];
type Handler = (msg: KernelMessage) => unknown;

/**
 * One comm over the page's kernel connection, in the shape the widget models expect
 * (`IClassicComm`). Sends return the message id: a model matches `echo_update`s by it
 * (https://github.com/jupyter-widgets/ipywidgets/blob/main/packages/schema/messages.md).
 * Binary buffers are not sent: the page talks to the kernel in JSON framing.
 */
export class PageComm implements IClassicComm {
  private onMsg: Handler | undefined;
  private onClose: Handler | undefined;

  constructor(
    private readonly kernel: KernelConnection,
    readonly target_name: string,
    readonly comm_id: string,
  ) {}

  open(data: Json, callbacks?: ICallbacks, metadata?: Record<string, unknown>): string {
    return this.request(
      'comm_open',
      { comm_id: this.comm_id, target_name: this.target_name, data },
      callbacks,
      metadata,
    );
  }

  send(data: Json, callbacks?: ICallbacks, metadata?: Record<string, unknown>): string {
    return this.request('comm_msg', { comm_id: this.comm_id, data }, callbacks, metadata);
  }

  close(data?: Json, callbacks?: ICallbacks, metadata?: Record<string, unknown>): string {
    return this.request('comm_close', { comm_id: this.comm_id, data: data ?? {} }, callbacks, metadata);
  }

  on_msg(callback: Handler): void {
    this.onMsg = callback;
  }

  on_close(callback: Handler): void {
    this.onClose = callback;
  }

  /** A `comm_msg` from the kernel; resolves once the model has applied it. */
  async receive(msg: KernelMessage): Promise<void> {
    await this.onMsg?.(msg);
  }

  /** The kernel closed the comm. */
  async closed(msg: KernelMessage): Promise<void> {
    await this.onClose?.(msg);
  }

  private request(
    type: string,
    content: Record<string, unknown>,
    callbacks: ICallbacks | undefined,
    metadata: Record<string, unknown> | undefined,
  ): string {
    const msg = makeMessage('shell', type, content, this.kernel.clientSession);
    msg.metadata = metadata ?? {};
    const iopub = (callbacks?.iopub ?? {}) as Record<string, ((m: unknown) => void) | undefined>;
    return this.kernel.send(msg, {
      noReply: true,
      onIOPub: (m) => {
        if (m.header.msg_type === 'clear_output') iopub.clear_output?.(m);
        else iopub.output?.(m);
      },
      // A model counts its messages in flight until their `idle` and holds back updates meanwhile.
      onDone: () => iopub.status?.({ ...msg, channel: 'iopub', content: { execution_state: 'idle' } }),
    });
  }
}
