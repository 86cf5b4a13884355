import { Agent, request as httpRequest } from 'node:http';
import { percentile } from './stats.js';

export interface LoadResult {
  requests: number;
  errors: number;
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
            else errors++;
          }
          resolve();
        });
        res.on('error', () => {
          if (measuring) errors++;
          resolve();
        });
      });
      req.on('error', () => {
        if (measuring) errors++;
        resolve();
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
    requestsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    seconds,
  };
}
