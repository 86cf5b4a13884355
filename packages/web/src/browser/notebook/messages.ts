/** Jupyter messaging protocol v5 shapes the notebook page uses. */
export interface MessageHeader {
  msg_id: string;
  msg_type: string;
  session: string;
  username: string;
  date: string;
  version: string;
}

export interface KernelMessage {
  channel: 'shell' | 'iopub' | 'stdin' | 'control';
  header: MessageHeader;
  parent_header: Partial<MessageHeader>;
  metadata: Record<string, unknown>;
  content: Record<string, unknown>;
  buffers?: unknown[];
}

export function uuid(): string {
  return crypto.randomUUID().replace(/-/g, '');
}

export function makeMessage(
  channel: KernelMessage['channel'],
  msgType: string,
  content: Record<string, unknown>,
  session: string,
  parent: Partial<MessageHeader> = {},
): KernelMessage {
  return {
    channel,
    header: {
      msg_id: uuid(),
      msg_type: msgType,
      session,
      username: '',
      date: new Date().toISOString(),
      version: '5.3',
    },
    parent_header: parent,
    metadata: {},
    content,
    buffers: [],
  };
}

/** Decodes a frame in the default (legacy JSON) framing, including its binary variant (§6.3). */
export function decodeFrame(data: string | ArrayBuffer): KernelMessage | undefined {
  try {
    if (typeof data === 'string') return JSON.parse(data) as KernelMessage;
    const view = new DataView(data);
    const nbufs = view.getUint32(0);
    const offsets: number[] = [];
    for (let i = 0; i < nbufs; i++) offsets.push(view.getUint32(4 * (i + 1)));
    const end = offsets[1] ?? data.byteLength;
    const msg = JSON.parse(
      new TextDecoder().decode(new Uint8Array(data, offsets[0], end - (offsets[0] ?? 0))),
    ) as KernelMessage;
    msg.buffers = offsets.slice(1).map((start, i) => data.slice(start, offsets[i + 2] ?? data.byteLength));
    return msg;
  } catch {
    return undefined;
  }
}
