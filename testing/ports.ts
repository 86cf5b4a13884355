import net from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (for a counterpart server, or for nothing to listen at). */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0] as number;
}

/** `n` distinct such ports (all held at once while they are picked, so none repeats). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, async () => {
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
      return server;
    }),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  return ports;
}
