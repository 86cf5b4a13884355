import type { ExecutionRequest } from '@nbserve/core';
import type { Context, Hono, Next } from 'hono';
import * as v from 'valibot';
import { requestActor } from '../../audit/request-actor.js';
import type { NbserveEnv } from '../../env.js';
import { parseJsonBody } from '../../validate.js';
import { collaborationOf } from './collaboration.js';
import { kernelIdParam } from './kernels.js';

type Ctx = Context<NbserveEnv>;

const ExecuteBody = v.object(
  {
    code: v.optional(v.pipe(v.string('code must be a string'), v.maxLength(16 * 1024 * 1024, 'code is too long'))),
    metadata: v.object(
      {
        document_id: v.pipe(v.string('metadata.document_id must be a string'), v.maxLength(200)),
        cell_id: v.pipe(v.string('metadata.cell_id must be a string'), v.minLength(1), v.maxLength(200)),
      },
      'metadata must be an object with document_id and cell_id',
    ),
  },
  'The request body must be a JSON object',
);

const InputBody = v.object(
  { value: v.pipe(v.string('value must be a string'), v.maxLength(1024 * 1024, 'value is too long')) },
  'The request body must be a JSON object with a string value',
);

/**
 * Server-side execution (after jupyter-server-nbmodel's routes): `POST /api/kernels/<id>/execute`
 * with `{code?, metadata: {document_id, cell_id}}` queues a run of that cell of that shared
 * document (202, `Location` of the request); `GET /api/kernels/<id>/requests/<request_id>`
 * answers 202 while it is queued or running and 200 once it ended, with `input_request` while
 * the code waits in `input()`; `POST …/requests/<request_id>/input` `{value}` answers that prompt.
 * docs/collaboration.md.
 */
export function registerCellExecuteRoutes(app: Hono<NbserveEnv>): void {
  app.post('/api/kernels/:kernel_id/execute', async (c, next: Next) => {
    const collaboration = await collaborationOf(c);
    if (!collaboration) return next();
    const kernelId = kernelIdParam(c);
    const { code, metadata } = await parseJsonBody(c, ExecuteBody);
    const request = await collaboration.executor.execute(kernelId, metadata.document_id, metadata.cell_id, code);
    const { audit } = c.get('services');
    // Without `code` the cell's source in the shared document runs.
    audit?.execute(requestActor(c), {
      kernel_id: kernelId,
      session: null,
      msg_id: null,
      path: null,
      document_id: metadata.document_id,
      cell_id: metadata.cell_id,
      code: code ?? '',
    });
    const location = `${c.get('baseUrl')}api/kernels/${kernelId}/requests/${request.request_id}`;
    c.header('Location', location);
    c.header('Access-Control-Expose-Headers', 'Location');
    return c.json(view(request, location), 202);
  });

  app.get('/api/kernels/:kernel_id/requests/:request_id', async (c: Ctx, next: Next) => {
    const collaboration = await collaborationOf(c);
    if (!collaboration) return next();
    const kernelId = kernelIdParam(c);
    const request = collaboration.executor.get(kernelId, c.req.param('request_id') ?? '');
    const pending = request.status === 'queued' || request.status === 'running';
    return c.json(view(request), pending ? 202 : 200);
  });

  app.post('/api/kernels/:kernel_id/requests/:request_id/input', async (c: Ctx, next: Next) => {
    const collaboration = await collaborationOf(c);
    if (!collaboration) return next();
    const kernelId = kernelIdParam(c);
    const { value } = await parseJsonBody(c, InputBody);
    collaboration.executor.answer(kernelId, c.req.param('request_id') ?? '', value);
    return c.body(null, 204);
  });
}

function view(request: ExecutionRequest, location?: string) {
  const pending = request.status === 'queued' || request.status === 'running';
  return { ...request, pending, ...(location ? { request_url: location } : {}) };
}
