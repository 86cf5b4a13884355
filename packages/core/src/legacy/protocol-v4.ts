import * as v from 'valibot';
import { badRequest } from '../errors.js';
import type { JupyterMessage, MessageHeader } from '../protocol/types.js';
import { isObject } from '../util/is-object.js';

/**
 * Kernel messaging v5 <-> v4, ported from jupyter_client's `adapter.py`, for the per-channel
 * sockets of IPython 0.13–2.x frontends. Kernels speak v5; those frontends speak v4 (0.13's v3
 * differs only in lacking `metadata`, which it ignores).
 */
type Json = Record<string, unknown>;

const V5_TO_V4_TYPES: Record<string, string> = {
  execute_result: 'pyout',
  execute_input: 'pyin',
  error: 'pyerr',
  inspect_request: 'object_info_request',
  inspect_reply: 'object_info_reply',
};
const V4_TO_V5_TYPES: Record<string, string> = Object.fromEntries(
  Object.entries(V5_TO_V4_TYPES).map(([k, val]) => [val, k]),
);

/** Kernel -> old frontend. */
export function adaptV5ToV4(msg: JupyterMessage): JupyterMessage {
  const header: Json = { ...msg.header };
  const parent: Json = { ...msg.parent_header };
  delete header.version;
  delete parent.version;
  const v5Type = msg.header.msg_type;
  header.msg_type = V5_TO_V4_TYPES[v5Type] ?? v5Type;
  if (typeof parent.msg_type === 'string') parent.msg_type = V5_TO_V4_TYPES[parent.msg_type] ?? parent.msg_type;
  const content = contentV5ToV4(v5Type, structuredClone(msg.content) as Json);
  return {
    header: header as MessageHeader,
    parent_header: parent as MessageHeader,
    metadata: msg.metadata,
    content,
    buffers: [],
  };
}

function contentV5ToV4(type: string, content: Json): Json {
  switch (type) {
    case 'kernel_info_reply': {
      const v4: Json = {};
      for (const key of ['language_version', 'protocol_version']) {
        if (typeof content[key] === 'string') v4[key] = versionList(content[key]);
      }
      if (content.implementation === 'ipython' && typeof content.implementation_version === 'string') {
        v4.ipython_version = versionList(content.implementation_version);
      }
      const info = isObject(content.language_info) ? content.language_info : {};
      v4.language = typeof info.name === 'string' ? info.name : '';
      if (typeof info.version === 'string' && v4.language_version === undefined) {
        v4.language_version = versionList(info.version);
      }
      return v4;
    }
    case 'execute_reply':
      return { user_variables: {}, ...content };
    case 'complete_reply': {
      const matches = Array.isArray(content.matches) ? content.matches.filter((m) => typeof m === 'string') : [];
      const start = typeof content.cursor_start === 'number' ? content.cursor_start : 0;
      const end = typeof content.cursor_end === 'number' ? content.cursor_end : start;
      const { cursor_start: _s, cursor_end: _e, metadata: _m, ...rest } = content;
      return { ...rest, matches, matched_text: (matches[0] ?? '').slice(0, end - start) };
    }
    case 'inspect_reply':
      // Upstream's adapter cannot map rich inspection back either.
      return { found: false, oname: 'unknown' };
    case 'stream': {
      const { text, ...rest } = content;
      return { ...rest, data: text ?? '' };
    }
    case 'display_data': {
      const data = isObject(content.data) ? { ...content.data } : {};
      if (data['application/json'] !== undefined && typeof data['application/json'] !== 'string') {
        data['application/json'] = JSON.stringify(data['application/json']);
      }
      return { source: 'display', ...content, data };
    }
    case 'input_request': {
      const { password: _p, ...rest } = content;
      return rest;
    }
    default:
      return content;
  }
}

/** Old frontend -> kernel. `version` is the v5 version the server speaks. */
export function adaptV4ToV5(msg: JupyterMessage, version: string): JupyterMessage {
  const v4Type = msg.header.msg_type;
  const header = { ...msg.header, msg_type: V4_TO_V5_TYPES[v4Type] ?? v4Type, version };
  const parent: Json = { ...msg.parent_header };
  if (Object.keys(parent).length > 0) {
    parent.version = version;
    if (typeof parent.msg_type === 'string') parent.msg_type = V4_TO_V5_TYPES[parent.msg_type] ?? parent.msg_type;
  }
  return {
    header,
    parent_header: parent as MessageHeader,
    metadata: msg.metadata,
    content: contentV4ToV5(v4Type, structuredClone(msg.content) as Json),
    buffers: msg.buffers,
  };
}

function contentV4ToV5(type: string, content: Json): Json {
  switch (type) {
    case 'execute_request': {
      const { user_variables, ...rest } = content;
      const expressions: Json = isObject(rest.user_expressions) ? { ...rest.user_expressions } : {};
      for (const name of Array.isArray(user_variables) ? user_variables : []) {
        if (typeof name === 'string') expressions[name] = name;
      }
      return { ...rest, user_expressions: expressions };
    }
    case 'complete_request': {
      const line =
        typeof content.line === 'string' ? content.line : typeof content.text === 'string' ? content.text : '';
      const cursor = typeof content.cursor_pos === 'number' ? content.cursor_pos : line.length;
      return { code: line, cursor_pos: cursor };
    }
    case 'object_info_request': {
      const oname = typeof content.oname === 'string' ? content.oname : '';
      return { code: oname, cursor_pos: oname.length, detail_level: content.detail_level ?? 0 };
    }
    default:
      return content;
  }
}

/** "3.11.2" -> [3, 11, 2], as v4 clients expect; non-numeric parts are dropped. */
function versionList(version: string): number[] {
  return version
    .split('.')
    .map((part) => Number.parseInt(part, 10))
    .filter((n) => Number.isFinite(n));
}

// --- framing of the per-channel sockets ----------------------------------------------------

const LegacyFrame = v.object({
  header: v.looseObject({ msg_id: v.pipe(v.string(), v.minLength(1)), msg_type: v.pipe(v.string(), v.minLength(1)) }),
  parent_header: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  metadata: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  content: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
});

/** Largest inbound frame old servers accepted; larger ones are refused rather than parsed. */
export const LEGACY_MAX_FRAME_BYTES = 1024 * 1024;

/** Parses a client frame of a per-channel socket: JSON `{header, parent_header, metadata?, content}`. */
export function decodeLegacyFrame(text: string): JupyterMessage {
  if (text.length > LEGACY_MAX_FRAME_BYTES) throw badRequest('WebSocket frame too large', 'bad frame');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('WebSocket frame is not valid JSON', 'bad frame');
  }
  const parsed = v.safeParse(LegacyFrame, value);
  if (!parsed.success) throw badRequest('WebSocket frame is not a kernel message', 'bad frame');
  const m = parsed.output;
  const header = {
    session: '',
    username: '',
    date: new Date().toISOString(),
    version: '',
    ...m.header,
  } as MessageHeader;
  return {
    header,
    parent_header: (m.parent_header ?? {}) as MessageHeader,
    metadata: m.metadata ?? {},
    content: m.content ?? {},
    buffers: [],
  };
}

/** Server -> old client: no `channel`, no `buffers`, and no `date` in either header (as upstream). */
export function encodeLegacyFrame(msg: JupyterMessage): string {
  const { date: _d, ...header } = msg.header;
  const { date: _pd, ...parent } = msg.parent_header as Json;
  return JSON.stringify({ header, parent_header: parent, metadata: msg.metadata, content: msg.content });
}
