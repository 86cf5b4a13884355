import http from 'node:http';

/**
 * One HTTP request to 127.0.0.1 with node:http, answered as a Fetch `Response`. Unlike `fetch`,
 * the path goes out byte for byte (no URL normalization), headers go out exactly as given (no
 * added `Sec-Fetch-*`), redirects are returned, and each request gets its own connection.
 */
export function requestOverSocket(port: number, target: string, init: RequestInit): Promise<Response> {
  const body = init.body === undefined || init.body === null ? undefined : bodyBytes(init.body);
  const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers).entries());
  if (body) headers['content-length'] = String(body.byteLength);
  const method = init.method ?? 'GET';
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method, path: target, headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const out = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) out.append(name, one);
          }
          const status = response.statusCode ?? 500;
          const empty = status === 204 || status === 304 || method === 'HEAD';
          resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: out }));
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function bodyBytes(body: NonNullable<RequestInit['body']>): Buffer {
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(String(body));
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  throw new Error('requestOverSocket sends string, URLSearchParams and byte bodies');
}
