/**
 * A small stand-in for Jupyter Enterprise Gateway, which cannot be installed here: its REST API
 * (kernelspecs with `?user=`, kernels, interrupt, restart, resources), slow kernel starts, a
 * refusal for users it does not know, and channels in the JSON framing only (it never selects the
 * v1 subprotocol). Its "kernel" answers kernel_info, execute (with a stdout stream, and
 * `input()` over stdin) and any other request with an ok reply. It records every request, start
 * body and channels frame for the test to check.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export interface StubRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface StubFrame {
  kernelId: string;
  binary: boolean;
  message: Record<string, unknown>;
}

export interface StubKernel {
  id: string;
  name: string;
  env: Record<string, string>;
  sockets: Set<WebSocket>;
  /** `session_id` of every channels connection, in order. */
  sessions: string[];
  /** Parent msg_id of a pending `input()` execute, with its request header. */
  waitingInput: Record<string, unknown> | undefined;
}

export interface GatewayStub {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  token: string;
  requests: StubRequest[];
  frames: StubFrame[];
  kernels: Map<string, StubKernel>;
  /** How long a kernel start takes. */
  startDelayMs: number;
  /** Users (`KERNEL_USERNAME`) allowed to start kernels; empty: anyone. */
  authorizedUsers: string[];
  /** Sends a kernel message to every channels connection of a kernel. */
  emit(kernelId: string, channel: string, msgType: string, content: object, parent?: Record<string, unknown>): void;
  /** Closes a kernel's channels connections without stopping it (a gateway restart, a network blip). */
  dropChannels(kernelId: string): void;
  /** Culls a kernel, as the gateway's own idle culler does. */
  cull(kernelId: string): void;
  close(): Promise<void>;
}

const SPEC = {
  name: 'python3',
  spec: {
    argv: ['python', '-m', 'ipykernel_launcher', '-f', '{connection_file}'],
    env: {},
    display_name: 'Python on Kubernetes',
    language: 'python',
    interrupt_mode: 'signal',
    metadata: {
      process_proxy: { class_name: 'enterprise_gateway.services.processproxies.k8s.KubernetesProcessProxy' },
    },
  },
  resources: { 'logo-64x64': '/kernelspecs/python3/logo-64x64.png' },
};

/** A PNG signature and a few bytes: enough to be told apart. */
export const STUB_LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);

export async function startGatewayStub(token = 'stub-gateway-token'): Promise<GatewayStub> {
  const stubSession = randomUUID();
  const kernels = new Map<string, StubKernel>();
  const requests: StubRequest[] = [];
  const frames: StubFrame[] = [];
  const sockets = new Set<net.Socket>();

  const message = (channel: string, msgType: string, content: object, parent: Record<string, unknown> = {}) => {
    const header = {
      msg_id: randomUUID(),
      msg_type: msgType,
      session: stubSession,
      username: 'stub',
      date: new Date().toISOString(),
      version: '5.3',
    };
    // As jupyter_server's JSON framing: msg_id and msg_type at the top level too.
    const msg = { channel, header, parent_header: parent, metadata: {}, content, buffers: [] };
    return JSON.stringify({ ...msg, msg_id: header.msg_id, msg_type: msgType });
  };
  const emit: GatewayStub['emit'] = (kernelId, channel, msgType, content, parent) => {
    for (const ws of kernels.get(kernelId)?.sockets ?? []) ws.send(message(channel, msgType, content, parent));
  };

  const answer = (kernel: StubKernel, ws: WebSocket, msg: Record<string, unknown>) => {
    const header = msg.header as { msg_type: string };
    const content = (msg.content ?? {}) as Record<string, unknown>;
    const send = (channel: string, type: string, body: object, parent = msg.header as Record<string, unknown>) =>
      ws.send(message(channel, type, body, parent));
    const status = (state: string, parent = msg.header as Record<string, unknown>) =>
      emit(kernel.id, 'iopub', 'status', { execution_state: state }, parent);
    if (msg.channel === 'stdin' && header.msg_type === 'input_reply' && kernel.waitingInput) {
      const parent = kernel.waitingInput;
      kernel.waitingInput = undefined;
      emit(kernel.id, 'iopub', 'stream', { name: 'stdout', text: `got ${String(content.value)}\n` }, parent);
      send('shell', 'execute_reply', { status: 'ok', execution_count: 1 }, parent);
      status('idle', parent);
      return;
    }
    status('busy');
    if (header.msg_type === 'kernel_info_request') {
      send('shell', 'kernel_info_reply', {
        status: 'ok',
        protocol_version: '5.3',
        implementation: 'stub',
        implementation_version: '1.0',
        language_info: { name: 'python', version: '3', mimetype: 'text/x-python', file_extension: '.py' },
        banner: 'stub',
        help_links: [],
      });
    } else if (header.msg_type === 'execute_request' && content.code === 'input()') {
      kernel.waitingInput = msg.header as Record<string, unknown>;
      send('stdin', 'input_request', { prompt: '? ', password: false });
      return;
    } else if (header.msg_type === 'execute_request') {
      emit(
        kernel.id,
        'iopub',
        'stream',
        { name: 'stdout', text: `ran ${String(content.code)}\n` },
        msg.header as never,
      );
      send('shell', 'execute_reply', { status: 'ok', execution_count: 1, user_expressions: {}, payload: [] });
    } else if (header.msg_type.endsWith('_request')) {
      send(String(msg.channel ?? 'shell'), header.msg_type.replace(/_request$/, '_reply'), { status: 'ok' });
    }
    status('idle');
  };

  const model = (k: StubKernel) => ({
    id: k.id,
    name: k.name,
    last_activity: new Date().toISOString(),
    execution_state: 'idle',
    connections: k.sockets.size,
  });
  const authorized = (req: http.IncomingMessage) => req.headers.authorization === `token ${token}`;
  const stub = { startDelayMs: 0, authorizedUsers: [] as string[] };

  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const parsed = body ? JSON.parse(body) : undefined;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: parsed });
      const json = (status: number, value?: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(value === undefined ? '' : JSON.stringify(value));
      };
      const notFound = () => json(404, { message: `Not found: ${url.pathname}`, reason: 'Not Found' });
      if (!authorized(req)) return json(401, { message: 'Unauthorized', reason: null });
      const path = url.pathname;
      const kernelMatch = /^\/api\/kernels\/([^/]+)(?:\/(interrupt|restart))?$/.exec(path);
      if (req.method === 'GET' && path === '/api/kernelspecs')
        return json(200, { default: 'python3', kernelspecs: { python3: SPEC } });
      if (req.method === 'GET' && path === '/api/kernelspecs/python3') return json(200, SPEC);
      if (req.method === 'GET' && path === '/kernelspecs/python3/logo-64x64.png') {
        res.writeHead(200, { 'Content-Type': 'image/png' });
        return res.end(STUB_LOGO);
      }
      if (req.method === 'GET' && path === '/api/kernels') return json(200, [...kernels.values()].map(model));
      if (req.method === 'POST' && path === '/api/kernels') {
        const env = (parsed?.env ?? {}) as Record<string, string>;
        if (stub.authorizedUsers.length > 0 && !stub.authorizedUsers.includes(env.KERNEL_USERNAME ?? '')) {
          return json(403, {
            message: `User '${env.KERNEL_USERNAME}' is not authorized to start kernel '${parsed?.name}'.`,
          });
        }
        await new Promise((r) => setTimeout(r, stub.startDelayMs));
        const kernel: StubKernel = {
          id: randomUUID(),
          name: parsed?.name ?? 'python3',
          env,
          sockets: new Set(),
          sessions: [],
          waitingInput: undefined,
        };
        kernels.set(kernel.id, kernel);
        return json(201, model(kernel));
      }
      const kernel = kernelMatch ? kernels.get(decodeURIComponent(kernelMatch[1] as string)) : undefined;
      if (!kernel) return notFound();
      if (req.method === 'GET' && !kernelMatch?.[2]) return json(200, model(kernel));
      if (req.method === 'DELETE' && !kernelMatch?.[2]) {
        stubApi.cull(kernel.id);
        return json(204);
      }
      if (req.method === 'POST' && kernelMatch?.[2] === 'interrupt') return json(204);
      if (req.method === 'POST' && kernelMatch?.[2] === 'restart') {
        emit(kernel.id, 'iopub', 'status', { execution_state: 'restarting' });
        return json(200, model(kernel));
      }
      return notFound();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  // Enterprise Gateway speaks the JSON framing only: it never selects a subprotocol.
  const wss = new WebSocketServer({ noServer: true, handleProtocols: () => false });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const match = /^\/api\/kernels\/([^/]+)\/channels$/.exec(url.pathname);
    const kernel = match ? kernels.get(decodeURIComponent(match[1] as string)) : undefined;
    requests.push({ method: 'UPGRADE', url: req.url ?? '', headers: req.headers, body: undefined });
    if (!authorized(req) || !kernel) {
      socket.end(`HTTP/1.1 ${kernel ? '401 Unauthorized' : '404 Not Found'}\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      kernel.sockets.add(ws);
      kernel.sessions.push(url.searchParams.get('session_id') ?? '');
      ws.on('close', () => kernel.sockets.delete(ws));
      ws.on('message', (data, isBinary) => {
        const msg = JSON.parse(String(data)) as Record<string, unknown>;
        frames.push({ kernelId: kernel.id, binary: isBinary, message: msg });
        answer(kernel, ws, msg);
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const stubApi: GatewayStub = {
    url: `http://127.0.0.1:${port}/`,
    token,
    requests,
    frames,
    kernels,
    get startDelayMs() {
      return stub.startDelayMs;
    },
    set startDelayMs(ms: number) {
      stub.startDelayMs = ms;
    },
    get authorizedUsers() {
      return stub.authorizedUsers;
    },
    set authorizedUsers(users: string[]) {
      stub.authorizedUsers = users;
    },
    emit,
    dropChannels(kernelId) {
      for (const ws of kernels.get(kernelId)?.sockets ?? []) ws.close(1001, 'Gateway restarting');
    },
    cull(kernelId) {
      const kernel = kernels.get(kernelId);
      kernels.delete(kernelId);
      for (const ws of kernel?.sockets ?? []) ws.close(1001, 'Kernel shut down');
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return stubApi;
}
