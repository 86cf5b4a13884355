import { Agent, request as httpRequest } from 'node:http';
import { percentile } from './stats.js';

export interface LoadResult {
  requests: number;
  errors: number;
  /** Failed requests by HTTP status or error code, e.g. `{ "503": 2, "ECONNRESET": 1 }`. */
  errorKinds: Record<string, number>;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  seconds: number;
}

/**
 * A closed-loop load generator: `connections` keep-alive sockets, each sending the next GET the
 * moment the previous response has been read in full, for `seconds` after a warm-up.
 */
export async function runLoad(options: {
  url: string;
  token: string;
  connections: number;
  seconds: number;
  warmupSeconds: number;
}): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const headers = { authorization: `token ${options.token}` };
  const latencies: number[] = [];
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  const fail = (kind: string) => {
    errors++;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  let measuring = false;
  let stopped = false;

  const one = () =>
    new Promise<void>((resolve) => {
      const start = performance.now();
      const req = httpRequest(options.url, { agent, headers }, (res) => {
        res.on('data', () => {});
        res.on('end', () => {
          if (measuring) {
            if (res.statusCode === 200) latencies.push(performance.now() - start);
            else fail(String(res.statusCode));
          }
          resolve();
        });
        res.on('error', (error: NodeJS.ErrnoException) => {
          if (measuring) fail(error.code ?? 'response error');
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (measuring) fail(error.code ?? 'request error');
        // a refused or reset connection fails at once; do not spin on a dead server
        setTimeout(resolve, 10);
      });
      req.end();
    });

  const worker = async () => {
    while (!stopped) await one();
  };
  const workers = Array.from({ length: options.connections }, worker);
  await new Promise((resolve) => setTimeout(resolve, options.warmupSeconds * 1000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000));
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  stopped = true;
  await Promise.all(workers);
  agent.destroy();
  return {
    requests: latencies.length,
    errors,
    errorKinds,
    requestsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    seconds,
  };
}
