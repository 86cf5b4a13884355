import { randomUUID } from 'node:crypto';
import {
  adaptV4ToV5,
  adaptV5ToV4,
  decodeLegacyFrame,
  encodeLegacyFrame,
  type Kernel,
  type KernelClient,
  type KernelManager,
  protocol,
} from '@nbserve/core';
import type { WebSocket } from 'ws';
import type { Actor } from '../audit/actor.js';
import type { ExecuteListener } from '../audit/execute.js';

export type LegacyChannel = 'shell' | 'iopub' | 'stdin';

/** Unsent bytes a socket may hold before its iopub output is dropped. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** Frames kept while the credentials are being checked. */
const MAX_EARLY_FRAMES = 64;

/** How long an old client may take to send its credentials frame. */
const CREDENTIALS_TIMEOUT_MS = 10_000;

/** Close codes: policy violation for bad or missing credentials, as upstream closed on 403. */
export const CLOSE_FORBIDDEN = 1008;

/**
 * One old frontend on one kernel: its shell and stdin sockets share one KernelClient (one
 * routing identity), so `input_request`s reach the stdin socket of the client whose code asked.
 */
class LegacyClient {
  readonly sockets = new Map<LegacyChannel, WebSocket>();
  readonly client: KernelClient;

  constructor(kernel: Kernel) {
    this.client = kernel.createClient();
    this.client.onMessage = (channel, raw) => {
      if (channel === 'control') return;
      const socket = this.sockets.get(channel);
      if (socket) sendAdapted(socket, raw);
    };
  }
}

/**
 * The per-channel kernel WebSockets of IPython 0.13–2.x (`/kernels/<id>/{shell,iopub,stdin}`,
 * 2.x under `/api/kernels`). Each socket speaks protocol v4 JSON without `channel`; this adapter
 * translates to and from v5 over the same kernel connection current clients use: iopub from the
 * kernel's one subscription (so old and new clients on a kernel see the same output), shell and
 * stdin through a KernelClient like every channels WebSocket.
 */
export class LegacyChannels {
  readonly #kernels: KernelManager;
  readonly #clients = new Map<string, LegacyClient>();
  readonly #open = new Set<WebSocket>();

  readonly #onExecute: ExecuteListener | undefined;

  /** `onExecute` sees every shell message a client sends (the audit log's `execute_request`s). */
  constructor(kernels: KernelManager, onExecute?: ExecuteListener) {
    this.#kernels = kernels;
    this.#onExecute = onExecute;
  }

  /**
   * Serves an accepted socket. The first frame must be the client's credentials string; it is
   * consumed here and never reaches the kernel. `authenticate` decides whether it is enough
   * (the upgrade may already have been authenticated by cookie or token).
   */
  accept(
    kernelId: string,
    channel: LegacyChannel,
    ws: WebSocket,
    authenticate: (frame: string) => Promise<{ ok: boolean; sessionId: string | undefined }>,
    actor?: Actor,
  ): void {
    this.#open.add(ws);
    ws.on('close', () => this.#open.delete(ws));
    const timer = setTimeout(() => ws.close(CLOSE_FORBIDDEN, 'No credentials received'), CREDENTIALS_TIMEOUT_MS);
    timer.unref();
    // Clients send their first request right after the credentials: frames that arrive while
    // those are checked wait here (bounded) instead of being lost.
    const early: Array<[Buffer, boolean]> = [];
    let receive: ((data: Buffer, isBinary: boolean) => void) | undefined;
    let gotCredentials = false;
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const buffer = toBuffer(data);
      if (gotCredentials) {
        if (receive) receive(buffer, isBinary);
        else if (early.length < MAX_EARLY_FRAMES) early.push([buffer, isBinary]);
        return;
      }
      gotCredentials = true;
      clearTimeout(timer);
      void (async () => {
        const verdict = isBinary ? { ok: false, sessionId: undefined } : await authenticate(buffer.toString('utf8'));
        if (!verdict.ok) {
          ws.close(CLOSE_FORBIDDEN, 'Forbidden');
          return;
        }
        if (ws.readyState !== ws.OPEN) return;
        if (!this.#kernels.has(kernelId)) {
          ws.close(1011, 'Kernel is gone');
          return;
        }
        receive = this.#attach(this.#kernels.get(kernelId), channel, ws, verdict.sessionId, actor);
        for (const [frame, binary] of early.splice(0)) receive(frame, binary);
      })().catch(() => ws.close(1011, 'Internal error'));
    });
  }

  /** Wires an authenticated socket to the kernel; returns what handles its further frames. */
  #attach(
    kernel: Kernel,
    channel: LegacyChannel,
    ws: WebSocket,
    sessionId: string | undefined,
    actor: Actor | undefined,
  ): (data: Buffer, isBinary: boolean) => void {
    // The iopub socket is read-only upstream: client frames are ignored.
    let receive: (data: Buffer, isBinary: boolean) => void = () => {};
    kernel.connections++;
    kernel.noteActivity();
    const cleanups: Array<() => void> = [() => (kernel.connections = Math.max(0, kernel.connections - 1))];
    // Kernel state changes: upstream pushed these as iopub status messages.
    cleanups.push(
      kernel.onLifecycle((event) => {
        if (channel !== 'iopub' || event === 'restarted') return;
        const state = event === 'dead' ? 'dead' : 'restarting';
        const status = protocol.createMessage('status', { execution_state: state }, { session: kernel.session });
        sendJson(ws, encodeLegacyFrame(adaptV5ToV4(status)));
        if (event === 'dead') ws.close(1001, 'Kernel died');
      }),
    );
    if (channel === 'iopub') {
      cleanups.push(
        kernel.onIopub((raw, msgType) => {
          // A client that cannot keep up loses output, not the server its memory: iopub is
          // dropped while the socket's send buffer is full (status still goes through).
          if (ws.bufferedAmount > MAX_BUFFERED_BYTES && msgType !== 'status') return;
          sendAdapted(ws, raw);
        }),
      );
    } else {
      const key = `${kernel.id}:${sessionId ?? randomUUID()}`;
      let legacy = this.#clients.get(key);
      if (!legacy || legacy.client.closed) {
        legacy = new LegacyClient(kernel);
        this.#clients.set(key, legacy);
      }
      const group = legacy;
      group.sockets.get(channel)?.close(1000, 'Replaced by a newer connection');
      group.sockets.set(channel, ws);
      receive = (data, isBinary) => {
        if (isBinary) return;
        let msg: protocol.JupyterMessage;
        try {
          msg = adaptV4ToV5(decodeLegacyFrame(data.toString('utf8')), protocol.PROTOCOL_VERSION);
        } catch {
          return; // not a kernel message: dropped, as upstream dropped what it could not parse
        }
        const raw = protocol.toRaw(msg);
        if (actor && channel === 'shell') this.#onExecute?.(kernel.id, actor, raw);
        group.client.send(channel, raw);
      };
      cleanups.push(() => {
        if (group.sockets.get(channel) === ws) group.sockets.delete(channel);
        if (group.sockets.size === 0) {
          group.client.close();
          if (this.#clients.get(key) === group) this.#clients.delete(key);
        }
      });
    }
    const removed = this.#kernels.onRemoved((id) => {
      if (id === kernel.id) ws.close(1001, 'Kernel shut down');
    });
    cleanups.push(removed);
    ws.on('close', () => {
      for (const cleanup of cleanups) cleanup();
    });
    return receive;
  }

  /** Closes every legacy socket (server shutting down). */
  close(): void {
    for (const ws of this.#open) ws.close(1001, 'Server shutting down');
    for (const legacy of this.#clients.values()) legacy.client.close();
    this.#clients.clear();
  }
}

/** Kernel (v5, raw) -> old client (v4 JSON frame). */
function sendAdapted(ws: WebSocket, raw: protocol.RawMessage): void {
  let frame: string;
  try {
    frame = encodeLegacyFrame(adaptV5ToV4(protocol.fromRaw(raw)));
  } catch {
    return; // a kernel message that is not JSON cannot be shown to an old client
  }
  sendJson(ws, frame);
}

function sendJson(ws: WebSocket, frame: string): void {
  if (ws.readyState === ws.OPEN) ws.send(frame);
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
