import { createHmac, randomUUID } from 'node:crypto';

/**
 * The bench's own minimal Jupyter wire codec (sign, frame, parse). Deliberately independent of
 * packages/core/src/protocol: the floor must not share code, or bugs, with what it measures.
 */
export interface Header {
  msg_id: string;
  msg_type: string;
  session: string;
  username: string;
  date: string;
  version: string;
}

export interface Message {
  header: Header;
  parent_header: Partial<Header>;
  metadata: Record<string, unknown>;
  content: Record<string, unknown>;
  buffers?: Buffer[];
  channel?: string;
}

const DELIMITER = Buffer.from('<IDS|MSG>');

export function makeMessage(msgType: string, content: Record<string, unknown>, session: string): Message {
  return {
    header: {
      msg_id: randomUUID(),
      msg_type: msgType,
      session,
      username: 'bench',
      date: new Date().toISOString(),
      version: '5.3',
    },
    parent_header: {},
    metadata: {},
    content,
  };
}

export function executeContent(code: string): Record<string, unknown> {
  return { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: true };
}

export function encodeZmq(message: Message, key: string): Buffer[] {
  const parts = [message.header, message.parent_header, message.metadata, message.content].map((p) =>
    Buffer.from(JSON.stringify(p)),
  );
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return [DELIMITER, Buffer.from(key ? hmac.digest('hex') : ''), ...parts, ...(message.buffers ?? [])];
}

/** Parses a multipart ZMQ message; signatures are not checked (the floor trusts its own kernel). */
export function decodeZmq(frames: Buffer[]): Message {
  const at = frames.findIndex((f) => f.equals(DELIMITER));
  if (at < 0 || frames.length < at + 6) throw new Error('not a Jupyter message');
  const json = (i: number) => JSON.parse((frames[at + i] as Buffer).toString('utf8'));
  return {
    header: json(2),
    parent_header: json(3),
    metadata: json(4),
    content: json(5),
    buffers: frames.slice(at + 6),
  };
}
