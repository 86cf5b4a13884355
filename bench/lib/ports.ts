import { createServer } from 'node:net';

/** Asks the OS for a free loopback port. Small race, as jupyter_client itself has. */
export async function freePort(): Promise<number> {
  // The OS may hand a port it just freed out again; with 100 ports taken at once (20 kernels of 5
  // ports) a repeat is likely, and two kernels told the same port make one never answer.
  for (;;) {
    const port = await unusedPort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

const handedOut = new Set<number>();

async function unusedPort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
