import http from 'node:http';

/**
 * `GET <prefix>api` after every step, over one kept-alive connection (a new TCP connection per
 * probe would cost as much as the request it follows). Resolves with the status, or the error.
 */
export class Liveness {
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    readonly port: number,
    readonly path: string,
    readonly token: string,
  ) {}

  probe(timeoutMs = 30_000): Promise<number | Error> {
    return new Promise((resolve) => {
      const request = http.get(
        {
          host: '127.0.0.1',
          port: this.port,
          path: this.path,
          agent: this.#agent,
          headers: { authorization: `token ${this.token}` },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
          response.on('error', resolve);
        },
      );
      request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', resolve);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
