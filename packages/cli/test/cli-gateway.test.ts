// needs: kernel
/** The gateway flags of the real CLI, against the stub gateway of testing/gateway-stub.ts. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { type GatewayStub, startGatewayStub } from '../../../testing/gateway-stub.js';
import { TOKEN } from '../../../testing/token.js';
import { runCli as runInProcess } from '../src/run.js';

const dirs = useCliDirs();
let stub: GatewayStub;
beforeAll(async () => {
  stub = await startGatewayStub('cli-gateway-secret-token');
});
afterAll(async () => {
  await stub?.close();
});

function api(base: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `token ${TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('nbserve --gateway-*', () => {
  it.each([
    [['--gateway-header', 'no-equals-sign'], '--gateway-header: expected NAME=VALUE'],
    [['--gateway-header', 'bad name=1'], '--gateway-header: expected NAME=VALUE'],
    [['--gateway-request-timeout', '0'], '--gateway-request-timeout'],
    [['--gateway-request-timeout', 'soon'], '--gateway-request-timeout'],
    [['--gateway-url', 'ftp://gateway.example'], 'The gateway URL must start with http: or https:'],
    [['--gateway-url', 'not a url'], 'The gateway URL is not a URL'],
  ])('refuses %j with a clear message and a non-zero exit', async (args, mention) => {
    // In-process: the flags are refused before anything listens.
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      expect(await runInProcess([...isolated(dirs), ...args, dirs.root])).not.toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toContain(mention);
  });

  it('sends kernels to the gateway with the token, headers, forwarded variables and timeouts given', async () => {
    const cli = runCli(
      [
        ...isolated(dirs),
        `--token=${TOKEN}`,
        '--log-level=info',
        `--gateway-url=${stub.url}`,
        `--gateway-auth-token=${stub.token}`,
        '--gateway-header=X-Team=a',
        '--gateway-header',
        'X-Route=one=1, two=2',
        '--gateway-env=FOO,BAR',
        '--gateway-env=QUX',
        '--gateway-request-timeout=7',
        dirs.root,
      ],
      {
        env: { KERNEL_SPARK_CONF: 'x=1', FOO: 'f', BAR: 'b', QUX: 'q', BAZ: 'not forwarded', KERNEL_USERNAME: 'carol' },
      },
    );
    const base = (await cli.url).split('?')[0] as string;
    const listing = await (await api(base, 'GET', 'api/kernelspecs')).json();
    expect(listing.kernelspecs.python3.spec.display_name).toBe('Python on Kubernetes');
    const started = await api(base, 'POST', 'api/kernels', { name: 'python3' });
    expect(started.status).toBe(201);
    const [kernel] = [...stub.kernels.values()];
    expect(kernel?.env).toEqual({
      KERNEL_SPARK_CONF: 'x=1',
      KERNEL_USERNAME: 'carol',
      FOO: 'f',
      BAR: 'b',
      QUX: 'q',
      KERNEL_WORKING_DIR: dirs.root,
      KERNEL_LAUNCH_TIMEOUT: '5',
    });
    for (const request of stub.requests) {
      expect(request.headers.authorization).toBe(`token ${stub.token}`);
      expect(request.headers['x-team']).toBe('a');
      expect(request.headers['x-route']).toBe('one=1, two=2');
    }
    expect(stub.requests.some((r) => r.url === '/api/kernelspecs?user=carol')).toBe(true);
    // Stopping the server shuts its kernels down on the gateway; the gateway's token is never logged.
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
    expect(stub.kernels.size).toBe(0);
    expect(cli.stderr()).toContain('POST /api/kernels');
    expect(`${cli.stdout()}${cli.stderr()}`).not.toContain(stub.token);
  });

  it('takes the gateway from $JUPYTER_GATEWAY_URL and $JUPYTER_GATEWAY_AUTH_TOKEN', async () => {
    const cli = runCli([...isolated(dirs), `--token=${TOKEN}`, dirs.root], {
      env: { JUPYTER_GATEWAY_URL: stub.url, JUPYTER_GATEWAY_AUTH_TOKEN: stub.token },
    });
    const base = (await cli.url).split('?')[0] as string;
    const listing = await (await api(base, 'GET', 'api/kernelspecs')).json();
    expect(Object.keys(listing.kernelspecs)).toEqual(['python3']);
    expect(listing.kernelspecs.python3.spec.display_name).toBe('Python on Kubernetes');
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);
  });
});
