import { upgradeWebSocket } from '@hono/node-server';
import { forbidden, type KernelManager, notFound } from '@nbserve/core';
import type { Context, Hono, Next } from 'hono';
import { getCookie } from 'hono/cookie';
import type { WebSocket } from 'ws';
import { executeRecorder } from '../../audit/execute.js';
import { requestActor } from '../../audit/request-actor.js';
import { requestHost } from '../../auth/cookies.js';
import { checkXsrf, XSRF_COOKIE, XSRF_HEADERS } from '../../auth/xsrf.js';
import type { NbserveEnv } from '../../env.js';
import type { Services } from '../../services.js';
import { type LegacyChannel, LegacyChannels } from '../../ws/legacy-channels.js';
import { credentialsAuthenticate, parseLegacyCredentials } from '../../ws/legacy-credentials.js';
import { requireWebSocketUpgrade } from '../../ws/upgrade-request.js';
import { kernelIdParam } from '../api/kernels.js';

type Ctx = Context<NbserveEnv>;

const CHANNELS = new Set<string>(['shell', 'iopub', 'stdin']);
const ACTIONS = new Set<string>(['restart', 'interrupt', 'kill']);

// One adapter per kernel manager (per server), created on first use.
const adapters = new WeakMap<KernelManager, LegacyChannels>();

function legacyChannels(services: Services): LegacyChannels {
  const { kernels, audit, sessions } = services;
  let adapter = adapters.get(kernels);
  if (!adapter) {
    adapter = new LegacyChannels(kernels, audit ? executeRecorder(audit, sessions) : undefined);
    adapters.set(kernels, adapter);
  }
  return adapter;
}

/**
 * The older kernel routes (IPython 0.13–2.x): `GET /kernels` (ids), `POST
 * /kernels?notebook=<id>` (start or reuse the notebook's kernel through its session), the kernel
 * model, actions by POST and — as the spec lists them — by GET, and the per-channel WebSockets,
 * also at 2.x's `/api/kernels/<id>/{shell,iopub,stdin}`.
 */
export function registerLegacyKernelRoutes(app: Hono<NbserveEnv>): void {
  app.get('/kernels', (c) =>
    c.json(
      c
        .get('services')
        .kernels.list()
        .map((k) => k.id),
    ),
  );

  app.post('/kernels', async (c) => {
    const { kernels, sessions, legacyNotebooks } = c.get('services');
    const notebookId = c.req.query('notebook');
    let kernelId: string;
    if (notebookId !== undefined && notebookId !== '') {
      // Sessions are the one notebook <-> kernel map: a notebook's kernel is reused, as upstream.
      const path = await legacyNotebooks.pathOf(notebookId);
      const { model } = await sessions.create({ path, type: 'notebook' });
      if (!model.kernel) throw notFound('Kernel does not exist');
      kernelId = model.kernel.id;
    } else {
      kernelId = (await kernels.start()).id;
    }
    return kernelReply(c, kernelId);
  });

  app.get('/kernels/:kernel_id', (c) => c.json(c.get('services').kernels.get(kernelIdParam(c)).model()));

  app.delete('/kernels/:kernel_id', async (c) => {
    await c.get('services').kernels.shutdown(kernelIdParam(c));
    return c.body(null, 204);
  });

  app.post('/kernels/:kernel_id/:action', async (c) => performAction(c, c.req.param('action')));

  app.get('/kernels/:kernel_id/:what', async (c, next) => {
    const what = c.req.param('what');
    if (CHANNELS.has(what)) return channelSocket(c, next, what as LegacyChannel);
    // A state-changing GET is a CSRF target (a link or an <img> would do): it needs the token
    // or the XSRF value, never just the login cookie.
    requireTokenOrXsrf(c);
    return performAction(c, what);
  });

  app.get('/api/kernels/:kernel_id/:channel', async (c, next) => {
    const channel = c.req.param('channel');
    if (!CHANNELS.has(channel)) return next();
    return channelSocket(c, next, channel as LegacyChannel);
  });
}

async function performAction(c: Ctx, action: string): Promise<Response> {
  const id = kernelIdParam(c);
  const { kernels } = c.get('services');
  if (!ACTIONS.has(action)) {
    kernels.get(id); // an unknown kernel is a 404 before an unknown action
    throw notFound(`Unknown kernel action: ${action.slice(0, 50)}`);
  }
  if (action === 'interrupt') {
    await kernels.interrupt(id);
    return c.body(null, 204);
  }
  if (action === 'kill') {
    await kernels.shutdown(id);
    return c.body(null, 204);
  }
  await kernels.restart(id);
  return kernelReply(c, id);
}

/** `{ws_url, kernel_id}`: old clients open `<ws_url><base>kernels/<id>/<channel>`. */
function kernelReply(c: Ctx, kernelId: string): Response {
  const secure = new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
  c.header('Location', `${c.get('baseUrl')}kernels/${kernelId}`);
  return c.json({ ws_url: `${secure ? 'wss' : 'ws'}://${requestHost(c)}`, kernel_id: kernelId });
}

function requireTokenOrXsrf(c: Ctx): void {
  if (c.get('authVia') === 'token' || c.get('services').options.disableCheckXsrf) return;
  const submitted = XSRF_HEADERS.map((h) => c.req.header(h)).find(Boolean) ?? c.req.query('_xsrf');
  const verdict = checkXsrf(getCookie(c, XSRF_COOKIE), submitted);
  if (verdict !== 'ok')
    throw forbidden(`'_xsrf' argument ${verdict === 'missing' ? 'missing from' : 'does not match'} GET`);
}

/**
 * A per-channel socket. The auth middleware let the upgrade through even without credentials
 * (old clients send them in the first frame) but checked its Origin; the first frame decides.
 */
async function channelSocket(c: Ctx, next: Next, channel: LegacyChannel): Promise<Response | undefined> {
  const id = kernelIdParam(c);
  const { kernels, auth, metrics } = c.get('services');
  kernels.get(id); // 404 before the upgrade
  requireWebSocketUpgrade(c);
  const upgradeAuthenticated = c.get('authVia') !== 'none';
  const host = requestHost(c);
  const adapter = legacyChannels(c.get('services'));
  const actor = requestActor(c);
  const handler = upgradeWebSocket(() => ({
    onOpen(_event, ws) {
      metrics.trackWebSocket('legacy_kernel', ws.raw as WebSocket);
      adapter.accept(
        id,
        channel,
        ws.raw as WebSocket,
        async (frame) => {
          const credentials = parseLegacyCredentials(frame);
          if (!credentials) return { ok: false, sessionId: undefined };
          const ok = upgradeAuthenticated || (await credentialsAuthenticate(credentials, auth, host));
          return { ok, sessionId: credentials.sessionId };
        },
        actor,
      );
    },
  }));
  return (await handler(c, next)) ?? undefined;
}
