import { protocol } from '@nbserve/core';
import { MARKUP_PAYLOADS } from './markup.js';
import type { Rng } from './rng.js';

/** One WebSocket frame a client sends. */
export interface WsFrame {
  data: Buffer;
  binary: boolean;
}

const CHANNELS = ['shell', 'control', 'stdin', 'iopub', 'hb', 'nope', '', 'SHELL'];

/** Requests a client may send; none of them stops or restarts anything but the fuzz kernel. */
function kernelMessage(rng: Rng): protocol.JupyterMessage {
  const [msgType, content] = rng.pick<[string, Record<string, unknown>]>([
    ['kernel_info_request', {}],
    [
      'execute_request',
      {
        code: rng.pick(['1 + 1', '', 'x =', 'console.log("x".repeat(1000))', rng.pick(MARKUP_PAYLOADS)]),
        silent: false,
      },
    ],
    ['execute_request', { code: 42, silent: 'yes' }],
    ['complete_request', { code: 'Mat', cursor_pos: rng.pick([3, -1, 1e9]) }],
    ['inspect_request', { code: 'Math', cursor_pos: 4, detail_level: 9 }],
    ['is_complete_request', { code: 'if (' }],
    ['comm_open', { comm_id: 'c', target_name: rng.pick(['jupyter.widget', 'nope']), data: {} }],
    ['comm_msg', { comm_id: 'missing', data: { x: 1 } }],
    ['input_reply', { value: 'typed' }],
    ['history_request', { hist_access_type: 'tail', n: 1e9 }],
    ['interrupt_request', {}],
    ['shutdown_request', { restart: rng.chance(0.5) }],
    ['fz_unknown_request', { a: 1 }],
  ]);
  return protocol.createMessage(msgType, content, { session: `fz-${rng.string(6)}` });
}

function jsonText(rng: Rng): string {
  const msg = kernelMessage(rng) as unknown as Record<string, unknown>;
  const channel = rng.chance(0.8) ? rng.pick(CHANNELS.slice(0, 3)) : rng.pick<unknown>([...CHANNELS, 7, null]);
  const value: Record<string, unknown> = { ...msg, channel };
  if (rng.chance(0.2)) {
    const key = rng.pick(['header', 'parent_header', 'metadata', 'content', 'buffers', 'channel']);
    value[key] = rng.pick<unknown>([null, 1, 'x', [], [1, 2], { msg_type: 5 }]);
  }
  if (rng.chance(0.1)) delete value.header;
  return JSON.stringify(value);
}

/** A frame for the channels socket in the default JSON framing. */
export function jsonFrame(rng: Rng): WsFrame {
  return rng.weighted<() => WsFrame>([
    [5, () => ({ data: Buffer.from(jsonText(rng)), binary: false })],
    [
      2,
      () => {
        const text = jsonText(rng);
        return { data: Buffer.from(text.slice(0, rng.int(text.length))), binary: false };
      },
    ],
    [
      1,
      () => ({
        data: Buffer.from(rng.pick(['', 'null', '[]', '{}', '"x"', 'not json', '{"channel":"shell"}'])),
        binary: false,
      }),
    ],
    [
      1,
      () => ({
        data: Buffer.from(
          `{"channel":"shell","header":{"msg_type":"x","msg_id":"${'y'.repeat(rng.pick([70_000, 70_000, 2_000_000]))}"}}`,
        ),
        binary: false,
      }),
    ],
    [
      2,
      () => {
        // binary JSON framing: u32 count, u32 offsets, JSON, buffers — sometimes inconsistent
        const json = Buffer.from(jsonText(rng));
        const buffer = rng.bytes(rng.between(0, 64));
        const head = Buffer.alloc(12);
        head.writeUInt32LE(rng.pick([2, 2, 0, 1, 1000, 0xffffffff]), 0);
        head.writeUInt32LE(rng.pick([12, 12, 0, 99999]), 4);
        head.writeUInt32LE(12 + json.length + rng.pick([0, 0, 5, -3]), 8);
        return { data: Buffer.concat([head, json, buffer]), binary: true };
      },
    ],
    [1, () => ({ data: rng.bytes(rng.between(0, 300)), binary: rng.chance(0.8) })],
    [
      1,
      () => ({
        data: Buffer.from(jsonText(rng).replace('"content":{', `"content":{"deep":${deepJson(rng)},`)),
        binary: false,
      }),
    ],
  ])();
}

/** Nesting deep enough to overflow a recursive walker (JSON.stringify gives up near 10,000 levels). */
function deepJson(rng: Rng): string {
  const depth = rng.pick([2_000, 6_000, 12_000]);
  return rng.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A frame for a socket that negotiated `v1.kernel.websocket.jupyter.org`. */
export function v1Frame(rng: Rng): WsFrame {
  const msg = kernelMessage(rng);
  const channel = rng.pick<protocol.Channel>(['shell', 'shell', 'control', 'stdin', 'iopub']);
  const frame = protocol.encodeV1Frame(channel, protocol.toRaw(msg));
  const copy = Buffer.from(frame);
  return rng.weighted<() => WsFrame>([
    [4, () => ({ data: copy, binary: true })],
    [3, () => ({ data: copy.subarray(0, rng.int(copy.length)), binary: true })],
    [
      2,
      () => {
        const bad = Buffer.from(copy);
        const at = 8 * rng.between(0, 7);
        if (at + 8 <= bad.length)
          bad.writeBigUInt64LE(rng.pick([0n, 7n, 2n ** 63n, 2n ** 64n - 1n, BigInt(bad.length + 1)]), at);
        return { data: bad, binary: true };
      },
    ],
    [
      1,
      () => {
        // the channel name replaced
        const n = Number(copy.readBigUInt64LE(0));
        const start = Number(copy.readBigUInt64LE(8));
        const end = Number(copy.readBigUInt64LE(16));
        const name = Buffer.from(rng.pick(['nope', 'hb', '', 'shellx', '\u00ff']), 'latin1');
        const rebuilt = Buffer.concat([copy.subarray(0, start), name, copy.subarray(end)]);
        for (let i = 1; i < n; i++)
          rebuilt.writeBigUInt64LE(copy.readBigUInt64LE(8 * (i + 1)) - BigInt(end - start - name.length), 8 * (i + 1));
        return { data: rebuilt, binary: true };
      },
    ],
    [1, () => ({ data: Buffer.from(JSON.stringify({ ...msg, channel })), binary: false })],
    [1, () => ({ data: rng.bytes(rng.between(0, 100)), binary: true })],
  ])();
}

/** A frame for the older per-channel sockets: protocol v4 JSON without `channel`. */
export function legacyFrame(rng: Rng): WsFrame {
  const msg = kernelMessage(rng);
  const v4 = { header: { ...msg.header, username: 'fz' }, parent_header: {}, metadata: {}, content: msg.content };
  return rng.weighted<() => WsFrame>([
    [4, () => ({ data: Buffer.from(JSON.stringify(v4)), binary: false })],
    [2, () => ({ data: Buffer.from(JSON.stringify(v4).slice(0, rng.int(80))), binary: false })],
    [1, () => ({ data: Buffer.from(rng.pick(['', '{}', 'null', '[1]', '{"header":null}'])), binary: false })],
    [1, () => ({ data: rng.bytes(rng.between(1, 200)), binary: true })],
    [1, () => ({ data: Buffer.from('z'.repeat(rng.pick([9000, 9000, 1_000_000]))), binary: false })],
    [
      1,
      () => ({
        data: Buffer.from(JSON.stringify(v4).replace('"content":{', `"content":{"deep":${deepJson(rng)},`)),
        binary: false,
      }),
    ],
  ])();
}

/** The first frame of an older per-channel socket: credentials, right or wrong. */
export function legacyCredentialsFrame(rng: Rng, loginCookie: string, token: string): WsFrame {
  const text = rng.pick([
    `fz-session:${loginCookie}`,
    loginCookie,
    `:token=${token}`,
    `fz-session:token=${token}`,
    'fz-session:',
    `fz-session:${loginCookie.split('=')[0]}=forged`,
    `${'s'.repeat(300)}:${loginCookie}`,
    'x'.repeat(9000),
    '{"header":{}}',
    `a:b\u0000=c`,
    rng.pick(MARKUP_PAYLOADS),
  ]);
  return rng.chance(0.1) ? { data: rng.bytes(20), binary: true } : { data: Buffer.from(text), binary: false };
}
