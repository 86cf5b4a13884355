import { randomUUID } from 'node:crypto';
import { type JupyterMessage, type MessageHeader, PROTOCOL_VERSION } from './types.js';

/** ISO 8601 UTC with microseconds and `Z`, the format Python servers emit. */
export function isoDate(date: Date = new Date()): string {
  return `${date.toISOString().slice(0, -1)}000Z`;
}

export function newMsgId(): string {
  return randomUUID();
}

export interface HeaderOptions {
  session: string;
  username?: string;
  msgId?: string;
  date?: Date;
  version?: string;
}

export function createHeader(msgType: string, options: HeaderOptions): MessageHeader {
  return {
    msg_id: options.msgId ?? newMsgId(),
    session: options.session,
    username: options.username ?? '',
    date: isoDate(options.date),
    msg_type: msgType,
    version: options.version ?? PROTOCOL_VERSION,
  };
}

/** Builds a complete message; `parent` is the header of the request it answers (or none). */
export function createMessage<C extends object>(
  msgType: string,
  content: C,
  options: HeaderOptions & { parent?: MessageHeader | undefined; metadata?: Record<string, unknown> },
): JupyterMessage<C> {
  return {
    header: createHeader(msgType, options),
    parent_header: options.parent ?? {},
    metadata: options.metadata ?? {},
    content,
    buffers: [],
  };
}
