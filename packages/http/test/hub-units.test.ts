// needs: kernel
/**
 * Hub mode's parts one by one: which scopes admit, what the environment must say, how long the
 * hub's word is trusted, when cookies expire, how the hub client fails, and the activity reports.
 */
import { isNbserveError } from '@nbserve/core';
import { grantsAccess, HubAuth, HubClient, hubConfigFromEnv, spawnedByHub } from '@nbserve/http';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { type HubDouble, SERVER_API_TOKEN, startHubDouble } from '../../../testing/hub-double.js';

let hub: HubDouble;
beforeAll(async () => {
  hub = await startHubDouble();
});
afterAll(async () => {
  await hub.close();
});
afterEach(() => {
  hub.mode = 'ok';
  hub.tokens.clear();
  hub.requests.length = 0;
});

function recordingLogger() {
  const lines: string[] = [];
  return {
    lines,
    logger: {
      info: (line: string) => lines.push(line),
      warn: (line: string) => lines.push(line),
      error: (line: string) => lines.push(line),
    },
  };
}

describe('grantsAccess', () => {
  const required = ['access:servers!server=alice/', 'access:servers!user=alice'];
  it.each([
    [['access:servers!server=alice/'], true],
    [['access:servers!user=alice'], true],
    [['access:servers'], true],
    [['read:users', 'access:servers!server=alice/'], true],
    [[], false],
    [['access:servers!server=alice/other'], false],
    [['access:servers!server=bob/'], false],
    [['access:servers!user=bob'], false],
    [['access:servers!user=alicex', 'access:servers!user=alic'], false],
    [['access:servers!group=team'], false],
    [['admin:servers', 'admin:users', 'read:servers'], false],
    [['access:services'], false],
  ])('%j -> %s', (held, admitted) => {
    expect(grantsAccess(held, required)).toBe(admitted);
  });
  it('lets a user scope cover a named server of that user', () => {
    expect(grantsAccess(['access:servers!user=alice'], ['access:servers!server=alice/gpu'])).toBe(true);
    expect(grantsAccess(['access:servers!user=bob'], ['access:servers!server=alice/gpu'])).toBe(false);
  });
});

describe('hubConfigFromEnv', () => {
  const env = {
    JUPYTERHUB_API_TOKEN: 'secret-token-value',
    JUPYTERHUB_CLIENT_ID: 'jupyterhub-user-alice',
    JUPYTERHUB_USER: 'alice',
    JUPYTERHUB_SERVICE_URL: 'http://127.0.0.1:41234/user/alice/',
    JUPYTERHUB_SERVICE_PREFIX: '/user/alice/',
  };

  it('fills in what JupyterHub leaves out with its defaults', () => {
    const config = hubConfigFromEnv(env);
    expect(config).toMatchObject({
      apiUrl: 'http://127.0.0.1:8081/hub/api',
      hubHost: '',
      hubPrefix: '/hub/',
      servicePrefix: '/user/alice/',
      callbackUrl: '/user/alice/oauth_callback',
      callbackPath: '/user/alice/oauth_callback',
      accessScopes: ['access:servers!server=alice/', 'access:servers!user=alice'],
      activityUrl: null,
      activityIntervalSeconds: 300,
      serverName: '',
      debug: false,
      disableUserConfig: false,
    });
    expect(config.serviceUrl?.port).toBe('41234');
    expect(spawnedByHub(env)).toBe(true);
    expect(spawnedByHub({ ...env, JUPYTERHUB_API_TOKEN: '' })).toBe(false);
  });

  it('reads the scopes, the base URL and the extra settings a 3.0 spawner passes', () => {
    const config = hubConfigFromEnv({
      ...env,
      JUPYTERHUB_BASE_URL: '/jh/',
      JUPYTERHUB_API_URL: 'http://10.0.0.1:8081/jh/hub/api/',
      JUPYTERHUB_OAUTH_ACCESS_SCOPES: '["access:servers!server=alice/"]',
      JUPYTERHUB_OAUTH_SCOPES: '["ignored"]',
      JUPYTERHUB_OAUTH_CALLBACK_URL: 'http://hub.example.org/user/alice/oauth_callback',
      JUPYTERHUB_ACTIVITY_URL: 'http://10.0.0.1:8081/jh/hub/api/users/alice/activity',
      JUPYTERHUB_ACTIVITY_INTERVAL: '60',
      JUPYTERHUB_ROOT_DIR: '~/work',
      JUPYTERHUB_DEFAULT_URL: '/tree/work',
      JUPYTERHUB_DEBUG: '1',
      JUPYTERHUB_DISABLE_USER_CONFIG: 'true',
    });
    expect(config).toMatchObject({
      apiUrl: 'http://10.0.0.1:8081/jh/hub/api',
      hubPrefix: '/jh/hub/',
      accessScopes: ['access:servers!server=alice/'],
      callbackPath: '/user/alice/oauth_callback',
      activityIntervalSeconds: 60,
      rootDir: '~/work',
      defaultUrl: '/tree/work',
      debug: true,
      disableUserConfig: true,
    });
    expect(hubConfigFromEnv({ ...env, JUPYTERHUB_OAUTH_SCOPES: '["old"]' }).accessScopes).toEqual(['old']);
  });

  it('names every wrong variable, never a value', () => {
    const attempt = (over: Record<string, string | undefined>) => {
      try {
        hubConfigFromEnv({ ...env, ...over });
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    const missing = attempt({ JUPYTERHUB_API_TOKEN: undefined, JUPYTERHUB_CLIENT_ID: undefined });
    expect(missing).toContain('JUPYTERHUB_API_TOKEN is not set');
    expect(missing).toContain('JUPYTERHUB_CLIENT_ID is not set');
    expect(attempt({ JUPYTERHUB_API_URL: 'ftp://x' })).toContain('JUPYTERHUB_API_URL');
    expect(attempt({ JUPYTERHUB_ACTIVITY_INTERVAL: 'soon' })).toContain('JUPYTERHUB_ACTIVITY_INTERVAL');
    expect(attempt({ JUPYTERHUB_OAUTH_ACCESS_SCOPES: 'access:servers' })).toContain('is not JSON');
    expect(attempt({ JUPYTERHUB_OAUTH_ACCESS_SCOPES: '{"a":1}' })).toContain('not a JSON list of scopes');
    expect(attempt({ JUPYTERHUB_SERVICE_PREFIX: '/user/../x/' })).toContain('JUPYTERHUB_SERVICE_PREFIX');
    expect(attempt({ JUPYTERHUB_OAUTH_CALLBACK_URL: '/elsewhere/oauth_callback' })).toContain('not under /user/alice/');
    expect(attempt({ JUPYTERHUB_API_URL: 'secret-token-value' })).not.toContain('secret-token-value');
  });
});

describe('HubAuth', () => {
  function hubAuth(clock: { now: number }, cacheSeconds = 60) {
    const { logger, lines } = recordingLogger();
    const auth = new HubAuth(hub.config('alice', '/user/alice/'), { logger, cacheSeconds, now: () => clock.now });
    return { auth, lines };
  }

  it('trusts the hub’s verdict for a while, then asks again (a revoked token stops working)', async () => {
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const { auth } = hubAuth(clock);
    hub.tokens.set('tok', { name: 'alice', scopes: ['access:servers!user=alice'] });
    const asks = () => hub.requests.filter((r) => r.path === '/hub/api/user').length;
    expect((await auth.identify('tok'))?.user.name).toBe('alice');
    expect(await auth.identify('tok')).not.toBeNull();
    expect(asks()).toBe(1);
    hub.tokens.delete('tok');
    clock.now += 59_000;
    expect(await auth.identify('tok')).not.toBeNull();
    clock.now += 2_000;
    expect(await auth.identify('tok')).toBeNull();
    expect(asks()).toBe(2);
    // Refusals are cached too, so a client retrying a bad token does not flood the hub.
    expect(await auth.identify('tok')).toBeNull();
    expect(asks()).toBe(2);
  });

  it('keeps at most a bounded number of verdicts', async () => {
    const { auth } = hubAuth({ now: 0 });
    for (let i = 0; i < 1100; i++) await auth.identify(`bad-${i}`);
    hub.requests.length = 0;
    await auth.identify('bad-1099');
    await auth.identify('bad-0');
    expect(hub.requests.length).toBe(1); // the newest is still cached, the oldest was dropped
  });

  it('signs cookies with a key of its own, and lets them expire', () => {
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const { auth } = hubAuth(clock);
    const { auth: other } = hubAuth(clock);
    const cookie = auth.loginCookie('the-token');
    expect(auth.tokenFromCookie(cookie)).toBe('the-token');
    expect(other.tokenFromCookie(cookie)).toBeNull();
    const { state, cookie: stateCookie } = auth.newState('/user/alice/tree');
    expect(auth.checkState(state, stateCookie)).toBe('/user/alice/tree');
    expect(auth.checkState(`${state}x`, stateCookie)).toBeNull();
    expect(auth.checkState(state, cookie)).toBeNull(); // a login cookie is no state cookie
    expect(auth.tokenFromCookie(stateCookie)).toBeNull();
    clock.now += 11 * 60_000;
    expect(auth.checkState(state, stateCookie)).toBeNull();
    expect(auth.tokenFromCookie(cookie)).toBe('the-token');
    clock.now += 15 * 24 * 3600_000;
    expect(auth.tokenFromCookie(cookie)).toBeNull();
  });
});

describe('HubClient', () => {
  const config = () => hub.config('alice', '/user/alice/');

  it('gives up on a hub that does not answer, with a 503', async () => {
    hub.mode = 'hang';
    const client = new HubClient(config(), { timeoutMs: 300 });
    const error = await client.userForToken('t').catch((e: unknown) => e);
    expect(isNbserveError(error) && error.kind).toBe('unavailable');
    expect((error as Error).message).toBe('JupyterHub could not be reached: GET /hub/api/user timed out');
  });

  it('turns a refused code into a 403 and a hub failure into a 503', async () => {
    const client = new HubClient(config());
    const refused = await client.tokenForCode('unknown').catch((e: unknown) => e);
    expect(isNbserveError(refused) && refused.kind).toBe('forbidden');
    hub.mode = 'error';
    const failed = await client.tokenForCode('unknown').catch((e: unknown) => e);
    expect(isNbserveError(failed) && failed.kind).toBe('unavailable');
    await expect(client.ping()).rejects.toThrow('JupyterHub answered 500 to GET /hub/api');
  });

  it('reports activity in the shape the hub takes, with the server’s token', async () => {
    const client = new HubClient(config());
    await client.postActivity(new Date('2030-01-02T03:04:05.678Z'));
    const post = hub.requests.find((r) => r.method === 'POST');
    expect(post?.path).toBe('/hub/api/users/alice/activity');
    expect(post?.authorization).toBe(`token ${SERVER_API_TOKEN}`);
    expect(JSON.parse(post?.body ?? '')).toEqual({
      servers: { '': { last_activity: '2030-01-02T03:04:05.678Z' } },
      last_activity: '2030-01-02T03:04:05.678Z',
    });
  });
});

describe('HubActivityReporter', () => {
  it('reports at start, then only what is new; a failure is logged without the token and retried', async () => {
    const { logger, lines } = recordingLogger();
    const auth = new HubAuth(hub.config('alice', '/user/alice/'), { logger });
    const source = { lastActivity: new Date('2030-01-01T00:00:00Z') };
    const posts = () => hub.requests.filter((r) => r.method === 'POST').length;
    expect(await auth.reporter.report(source)).toBe(true);
    expect(await auth.reporter.report(source)).toBe(true);
    expect(posts()).toBe(1);
    source.lastActivity = new Date('2030-01-01T00:05:00Z');
    hub.mode = 'error';
    expect(await auth.reporter.report(source)).toBe(false);
    expect(lines.join('\n')).toContain('Could not report activity to JupyterHub: JupyterHub answered 500');
    hub.mode = 'ok';
    expect(await auth.reporter.report(source)).toBe(true);
    expect(JSON.parse(hub.requests.at(-1)?.body ?? '').last_activity).toBe('2030-01-01T00:05:00.000Z');
    expect(lines.join('\n')).not.toContain(SERVER_API_TOKEN);
    auth.close();
  });

  it('ticks on its own every interval once started', async () => {
    const { logger } = recordingLogger();
    const config = { ...hub.config('alice', '/user/alice/'), activityIntervalSeconds: 1 };
    const auth = new HubAuth(config, { logger });
    const source = { lastActivity: new Date() };
    const posts = () => hub.requests.filter((r) => r.method === 'POST').length;
    // The reporter's timer runs on a fake clock; the hub double answers over real HTTP.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    auth.startReporting(source);
    await vi.waitFor(() => expect(posts()).toBe(1));
    source.lastActivity = new Date(Date.now() + 1000);
    // one interval (with its jitter of up to 10 %) later, again and again until the report is out
    await vi.waitFor(async () => {
      await vi.advanceTimersByTimeAsync(1200);
      expect(posts()).toBe(2);
    });
    await vi.advanceTimersByTimeAsync(2400); // nothing new: no report
    auth.close();
    const bodies = hub.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body).last_activity);
    expect(bodies).toEqual([expect.any(String), source.lastActivity.toISOString()]);
  });

  it('says so when the hub gave no activity URL', () => {
    const { logger, lines } = recordingLogger();
    const auth = new HubAuth(hub.config('alice', '/user/alice/', { JUPYTERHUB_ACTIVITY_URL: '' }), { logger });
    auth.startReporting({ lastActivity: new Date() });
    expect(lines).toEqual(['Activity reports to JupyterHub are off: its idle culler cannot see this server']);
    auth.close();
  });
});
