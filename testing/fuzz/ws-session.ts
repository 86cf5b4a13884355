import { protocol } from '@nbserve/core';
import { WebSocket } from 'ws';
import { within } from '../wait.js';
import { type CredentialKind, credential, type Secrets } from './credentials.js';
import { extraHeaders } from './headers.js';
import type { Rng } from './rng.js';
import { jsonFrame, legacyCredentialsFrame, legacyFrame, v1Frame, type WsFrame } from './ws-frames.js';

/** One generated WebSocket conversation: where it connects, how, and what it sends. */
export interface WsPlan {
  kind: 'channels' | 'channels v1' | 'legacy' | 'elsewhere';
  /** Path and query as sent, from `/` on. */
  target: string;
  protocols: string[];
  headers: Record<string, string>;
  credential: CredentialKind;
  frames: WsFrame[];
}

/** Plans a socket to the fuzz kernel (never the sentinel) or to a path that is no socket at all. */
export function planSocket(rng: Rng, prefix: string, kernelId: string, secrets: Secrets, host: string): WsPlan {
  const kind = rng.weighted<WsPlan['kind']>([
    [4, 'channels'],
    [4, 'channels v1'],
    [3, 'legacy'],
    [1, 'elsewhere'],
  ]);
  const auth = credential(rng, secrets);
  const headers = { ...(rng.chance(0.5) ? extraHeaders(rng, host) : {}), ...auth.headers };
  delete headers.upgrade;
  const id = rng.chance(0.9) ? kernelId : rng.pick(['missing', '..', '%2e%2e', 'x'.repeat(500)]);
  const count = rng.between(1, 8);
  let path: string;
  let query = auth.query;
  let protocols: string[] = [];
  let frames: WsFrame[];
  if (kind === 'legacy') {
    const channel = rng.pick(['shell', 'iopub', 'stdin', 'control', 'hb']);
    path = rng.chance(0.5) ? `api/kernels/${id}/${channel}` : `kernels/${id}/${channel}`;
    frames = [
      legacyCredentialsFrame(rng, secrets.loginCookie, secrets.token),
      ...Array.from({ length: count }, () => legacyFrame(rng)),
    ];
  } else if (kind === 'elsewhere') {
    path = rng.pick([
      'api/contents/notebook.ipynb',
      'api/kernels',
      'api/status',
      'terminals/websocket/1',
      'api/events/subscribe',
      'nope',
      `api/kernels/${id}`,
    ]);
    frames = Array.from({ length: count }, () => jsonFrame(rng));
  } else {
    path = `api/kernels/${id}/channels`;
    if (rng.chance(0.7)) {
      const session = rng.pick(['fz-a', 'fz-b', `fz-${rng.string(8)}`, '', 'bad session!', 'x'.repeat(300)]);
      query = [query, `session_id=${encodeURIComponent(session)}`].filter((p) => p !== '').join('&');
    }
    if (kind === 'channels v1') {
      protocols = rng.chance(0.9) ? [protocol.V1_SUBPROTOCOL] : [protocol.V1_SUBPROTOCOL, 'v2.fz'];
      frames = Array.from({ length: count }, () => (rng.chance(0.85) ? v1Frame(rng) : jsonFrame(rng)));
    } else {
      if (rng.chance(0.1)) protocols = ['fz.protocol'];
      frames = Array.from({ length: count }, () => (rng.chance(0.9) ? jsonFrame(rng) : v1Frame(rng)));
    }
  }
  return {
    kind,
    target: `${prefix}${path}${query === '' ? '' : `?${query}`}`,
    protocols,
    headers,
    credential: auth.kind,
    frames,
  };
}

/** What happened to a planned socket: the refused upgrade's status, or how the open socket ended. */
export interface WsOutcome {
  upgradeStatus: number | undefined;
  opened: boolean;
  closeCode: number | undefined;
  closeReason: string;
  error: string | undefined;
}

/** Connects, sends every frame, waits `lingerMs` for the server's reaction, and closes. */
export async function runSocket(port: number, plan: WsPlan, lingerMs = 30): Promise<WsOutcome> {
  const outcome: WsOutcome = {
    upgradeStatus: undefined,
    opened: false,
    closeCode: undefined,
    closeReason: '',
    error: undefined,
  };
  const ws = new WebSocket(`ws://127.0.0.1:${port}${plan.target}`, plan.protocols, {
    headers: plan.headers,
    maxPayload: 64 * 1024 * 1024,
  });
  const answered = new Promise<void>((resolve) => {
    ws.once('open', () => {
      outcome.opened = true;
      resolve();
    });
    ws.once('unexpected-response', (_request, response) => {
      outcome.upgradeStatus = response.statusCode;
      response.resume();
      ws.terminate();
      resolve();
    });
    ws.once('error', (error) => {
      outcome.error ??= error.message;
      resolve();
    });
  });
  await within(answered, 10_000, 'an answer to the upgrade').catch((error: Error) => {
    outcome.error = error.message;
    ws.terminate();
  });
  if (!outcome.opened) return outcome;
  ws.on('error', () => {}); // a socket the server closed mid-send
  const closed = new Promise<void>((resolve) =>
    ws.once('close', (code, reason) => {
      outcome.closeCode = code;
      outcome.closeReason = reason.toString();
      resolve();
    }),
  );
  for (const frame of plan.frames) {
    if (ws.readyState !== WebSocket.OPEN) break;
    ws.send(frame.data, { binary: frame.binary });
  }
  const closedWithin = (ms: number) => within(closed, ms, 'close').catch(() => {});
  await closedWithin(lingerMs);
  if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000);
  await closedWithin(2000);
  ws.terminate();
  return outcome;
}

export function describeSocket(plan: WsPlan): string {
  const frame = (f: WsFrame) => {
    const shown = f.binary
      ? f.data.subarray(0, 120).toString('hex')
      : JSON.stringify(f.data.subarray(0, 200).toString('utf8'));
    return `  ${f.binary ? 'binary' : 'text'} ${f.data.length} bytes: ${shown}`;
  };
  return [
    `WebSocket ${plan.kind} ${plan.target.slice(0, 300)} protocols=${JSON.stringify(plan.protocols)} [credential: ${plan.credential}]`,
    ...Object.entries(plan.headers).map(([k, v]) => `  ${k}: ${v.slice(0, 300)}`),
    ...plan.frames.map(frame),
  ].join('\n');
}
