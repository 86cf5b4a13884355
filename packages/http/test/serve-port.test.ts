import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../src/serve.js';

const app = { fetch: () => new Response('ok') };

describe('listen() on a busy port', () => {
  let blocker: net.Server;
  let busy: number;
  beforeAll(async () => {
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    busy = (blocker.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => blocker.close(resolve)));

  it('moves to a following port, says so on the log, and reports the port and URL it took', async () => {
    const warnings: string[] = [];
    const running = await listen(app, { port: busy, logger: { warn: (message) => warnings.push(message) } });
    try {
      expect(warnings[0]).toBe(`The port ${busy} is already in use, trying another port.`);
      expect(running.port).toBeGreaterThan(busy);
      expect(warnings).toHaveLength(running.port - busy);
      expect(running.url).toBe(`http://127.0.0.1:${running.port}/`);
      expect(await (await fetch(running.url)).text()).toBe('ok');
    } finally {
      await running.close();
    }
  });

  it('says nothing when the port is free', async () => {
    const warnings: string[] = [];
    const running = await listen(app, { port: 0, logger: { warn: (message) => warnings.push(message) } });
    await running.close();
    expect(warnings).toEqual([]);
  });
});
