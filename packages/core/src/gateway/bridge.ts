import { randomBytes } from 'node:crypto';
import type { Publisher, Reply, Router } from 'zeromq';
import { SocketWriter } from '../kernels/socket-writer.js';
import type { ConnectionInfo } from '../kernels/types.js';
import { KERNEL_SOCKET_OPTIONS, zmq } from '../kernels/zmq.js';
import { createMessage } from '../protocol/header.js';
import { parsePart, peekMsgType, peekStringField, toRaw } from '../protocol/json-parts.js';
import { Signer } from '../protocol/signing.js';
import type { Channel, RawMessage } from '../protocol/types.js';
import { decodeWire, encodeWire } from '../protocol/wire.js';

/** Requests remembered for routing their replies; the oldest are forgotten beyond this. */
const MAX_ROUTES = 10_000;

type RequestChannel = 'shell' | 'control' | 'stdin';

/** Nudges after a gateway's restart: first after this, doubling up to the next, for at most the last. */
const NUDGE_FIRST_MS = 500;
const NUDGE_MAX_MS = 2000;
const NUDGE_FOR_MS = 120_000;

/** Where the bridge's messages go on the far side: the gateway's channels WebSocket. */
export interface BridgeUplink {
  send(channel: Channel, raw: RawMessage): void;
}

/**
 * A remote kernel's ports on this machine: ZeroMQ sockets bound on loopback that speak the kernel
 * side of the wire protocol (ROUTER for shell/control/stdin, PUB for iopub, REP for heartbeat),
 * with their own signing key, and carry every message over one WebSocket to the gateway. The
 * kernel manager, its clients, replay and fan-out then treat a gateway kernel like a local one.
 *
 * The gateway answers on its single WebSocket; a reply (and an `input_request`) goes back to the
 * client whose request it answers, found by the parent's `msg_id`, as a kernel's ROUTER would.
 */
export class ZmqBridge {
  readonly connection: ConnectionInfo;
  readonly #signer: Signer;
  readonly #routers: Record<RequestChannel, { socket: Router; writer: SocketWriter }>;
  readonly #iopub: { socket: Publisher; writer: SocketWriter };
  readonly #hb: Reply;
  /** Request msg_id -> the ZeroMQ identity of the client that sent it. */
  readonly #routes = new Map<string, Uint8Array>();
  #uplink: BridgeUplink | undefined;
  #closed = false;
  /** kernel_info requests of the bridge's own after a gateway restart (their replies go nowhere). */
  readonly #nudges = new Set<string>();
  #nudgeTimer: NodeJS.Timeout | undefined;
  readonly #session = randomBytes(16).toString('hex');
  /** Client messages dropped: bad signature or not a wire message. */
  dropped = 0;

  private constructor(
    connection: ConnectionInfo,
    routers: Record<RequestChannel, Router>,
    iopub: Publisher,
    hb: Reply,
  ) {
    this.connection = connection;
    this.#signer = new Signer(connection.key, connection.signature_scheme);
    this.#routers = {
      shell: { socket: routers.shell, writer: new SocketWriter(routers.shell) },
      control: { socket: routers.control, writer: new SocketWriter(routers.control) },
      stdin: { socket: routers.stdin, writer: new SocketWriter(routers.stdin) },
    };
    this.#iopub = { socket: iopub, writer: new SocketWriter(iopub) };
    this.#hb = hb;
    for (const channel of ['shell', 'control', 'stdin'] as const) void this.#receive(channel);
    void this.#echo();
  }

  /** Binds the five sockets on free loopback ports. */
  static async open(kernelName: string): Promise<ZmqBridge> {
    const z = zmq();
    const options = { ...KERNEL_SOCKET_OPTIONS };
    // A client that reopens its sockets under the same routing id takes the route over; a plain
    // ROUTER would silently ignore the newer connection while the old one lingers.
    const routerOptions = { ...options, handover: true };
    const routers = {
      shell: new z.Router(routerOptions),
      control: new z.Router(routerOptions),
      stdin: new z.Router(routerOptions),
    };
    const iopub = new z.Publisher({ ...options, sendHighWaterMark: 0 });
    const hb = new z.Reply(options);
    const all = [routers.shell, routers.control, routers.stdin, iopub, hb];
    try {
      const ports = await Promise.all(all.map(bindLoopback));
      const [shell_port, control_port, stdin_port, iopub_port, hb_port] = ports as [
        number,
        number,
        number,
        number,
        number,
      ];
      const connection: ConnectionInfo = {
        ip: '127.0.0.1',
        transport: 'tcp',
        shell_port,
        control_port,
        stdin_port,
        iopub_port,
        hb_port,
        key: randomBytes(32).toString('hex'),
        signature_scheme: 'hmac-sha256',
        kernel_name: kernelName,
      };
      return new ZmqBridge(connection, routers, iopub, hb);
    } catch (error) {
      for (const socket of all) socket.close();
      throw error;
    }
  }

  /** Where client messages go from now on (the gateway's WebSocket). */
  connect(uplink: BridgeUplink): void {
    this.#uplink = uplink;
  }

  /** A message from the gateway: iopub to every subscriber, anything else to the client that asked. */
  deliver(channel: Channel, raw: RawMessage): void {
    if (this.#closed) return;
    if (channel === 'iopub') {
      // Every iopub message passes here: the parent is looked at only while nudging.
      if (this.#nudges.size > 0 && this.#nudges.has(peekStringField(raw.parentHeader, 'msg_id'))) this.#stopNudging();
      else if (isRestartingStatus(raw)) this.#nudgeAfterRestart();
      this.#iopub.writer.write(encodeWire(raw, this.#signer));
      return;
    }
    const parentId = peekStringField(raw.parentHeader, 'msg_id');
    const identity = this.#routes.get(parentId);
    if (!identity) return; // a reply to a request of an earlier connection or another server
    // A shell or control request has exactly one reply, after its stdin traffic.
    if (channel !== 'stdin' && peekMsgType(raw.header).endsWith('_reply')) this.#routes.delete(parentId);
    this.#routers[channel].writer.write(encodeWire(raw, this.#signer, [identity]));
  }

  async #receive(channel: RequestChannel): Promise<void> {
    try {
      for await (const frames of this.#routers[channel].socket) {
        let identity: Uint8Array;
        let raw: RawMessage;
        try {
          const wire = decodeWire(frames);
          if (!this.#signer.verify(wire.signature, wire.raw)) throw new Error('bad signature');
          identity = wire.identities[0] as Uint8Array;
          raw = wire.raw;
        } catch {
          this.dropped++;
          continue;
        }
        if (channel !== 'stdin') this.#remember(peekStringField(raw.header, 'msg_id'), identity);
        this.#uplink?.send(channel, raw);
      }
    } catch {
      // closed
    }
  }

  #remember(msgId: string, identity: Uint8Array): void {
    if (msgId === '') return;
    if (this.#routes.size >= MAX_ROUTES) {
      const oldest = this.#routes.keys().next().value;
      if (oldest !== undefined) this.#routes.delete(oldest);
    }
    this.#routes.set(msgId, identity);
  }

  /**
   * A gateway that restarted its kernel (jupyter_server's restarter after the process died) sends
   * `restarting`, then whatever the new kernel publishes; but its own subscription to the new
   * kernel joins late, so the `idle` for a client's first kernel_info can be lost and the client
   * waits for it forever. As jupyter_server does for a new connection: ask kernel_info until
   * iopub answers one of those requests (its busy/idle then reach every client).
   */
  #nudgeAfterRestart(): void {
    this.#stopNudging();
    const until = Date.now() + NUDGE_FOR_MS;
    let wait = NUDGE_FIRST_MS;
    const nudge = () => {
      if (this.#closed || Date.now() > until) return this.#stopNudging();
      const request = createMessage('kernel_info_request', {}, { session: this.#session });
      this.#nudges.add(request.header.msg_id);
      this.#uplink?.send('shell', toRaw(request));
      this.#nudgeTimer = setTimeout(nudge, wait).unref();
      wait = Math.min(2 * wait, NUDGE_MAX_MS);
    };
    nudge();
  }

  #stopNudging(): void {
    clearTimeout(this.#nudgeTimer);
    this.#nudgeTimer = undefined;
    this.#nudges.clear();
  }

  /** Heartbeats are answered here: the gateway watches the kernel's own heartbeat. */
  async #echo(): Promise<void> {
    try {
      for await (const frames of this.#hb) await this.#hb.send(frames);
    } catch {
      // closed
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopNudging();
    this.#uplink = undefined;
    for (const { socket, writer } of [...Object.values(this.#routers), this.#iopub]) {
      writer.close();
      socket.close();
    }
    this.#hb.close();
    this.#routes.clear();
  }
}

function isRestartingStatus(raw: RawMessage): boolean {
  if (peekMsgType(raw.header) !== 'status') return false;
  try {
    return (parsePart(raw.content) as { execution_state?: unknown }).execution_state === 'restarting';
  } catch {
    return false;
  }
}

async function bindLoopback(socket: Router | Publisher | Reply): Promise<number> {
  await socket.bind('tcp://127.0.0.1:*');
  const port = Number(/:(\d+)$/.exec(socket.lastEndpoint ?? '')?.[1]);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`no port in ${socket.lastEndpoint}`);
  return port;
}
