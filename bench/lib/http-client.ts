import { Agent, request as httpRequest } from 'node:http';

/** A token-authenticated REST client over one keep-alive agent (what a real frontend does). */
export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** Request start to last body byte, in ms. */
  ms: number;
}

export class ApiClient {
  readonly agent: Agent;

  constructor(
    readonly origin: string,
    readonly token: string,
    maxSockets = 64,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  async request(method: string, path: string, body?: Buffer | string | object): Promise<ApiResponse> {
    const payload =
      body === undefined
        ? undefined
        : Buffer.isBuffer(body)
          ? body
          : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const url = new URL(path, this.origin);
    const start = performance.now();
    return await new Promise<ApiResponse>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            authorization: `token ${this.token}`,
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
              ms: performance.now() - start,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async json<T>(method: string, path: string, body?: Buffer | string | object): Promise<T> {
    const res = await this.request(method, path, body);
    if (res.status < 200 || res.status >= 300) {
      throw new Error(`${method} ${path} -> ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    }
    return JSON.parse(res.body.toString('utf8')) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}
