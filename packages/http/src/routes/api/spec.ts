import { readFile } from 'node:fs/promises';
import { internalError } from '@nbserve/core';
import type { Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/** packages/http/api/spec.yaml, from src/ and dist/ alike (and from the CLI bundle's mirror of this package). */
const SPEC_FILE = new URL('../../../api/spec.yaml', import.meta.url);

let spec: Promise<string> | undefined;

/** The OpenAPI description of every `/api` route, read once. */
export function apiSpecYaml(): Promise<string> {
  spec ??= readFile(SPEC_FILE, 'utf8').catch((error: unknown) => {
    spec = undefined;
    throw internalError('The API description is missing from this installation', { cause: error });
  });
  return spec;
}

/** `GET /api/spec.yaml`: the API's OpenAPI description, as jupyter_server serves its own. */
export function registerSpecRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api/spec.yaml', async (c) => c.body(await apiSpecYaml(), 200, { 'Content-Type': 'text/x-yaml' }));
}
