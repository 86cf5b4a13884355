import { badRequest, notFound, TERMINAL_NAME, type TerminalManager } from '@nbserve/core';
import type { Context, Hono, Next } from 'hono';
import * as v from 'valibot';
import { recordAudit } from '../../audit/record.js';
import type { NbserveEnv } from '../../env.js';
import { parseWith, readJsonBody } from '../../validate.js';

type Ctx = Context<NbserveEnv>;

const CreateBody = v.nullish(
  v.looseObject(
    {
      name: v.optional(
        v.nullable(
          v.pipe(v.string('name must be a string'), v.regex(TERMINAL_NAME, 'name must be letters, digits and _')),
        ),
      ),
      cwd: v.optional(v.nullable(v.pipe(v.string('cwd must be a string'), v.maxLength(4096, 'cwd is too long')))),
    },
    'The request body must be a JSON object',
  ),
);

const NameParam = v.pipe(v.string(), v.regex(TERMINAL_NAME));

/** The `:name` of a route, or `undefined` for one that cannot be a terminal's. */
export function terminalNameOf(c: Ctx): string | undefined {
  const name = c.req.param('name');
  return v.is(NameParam, name) ? name : undefined;
}

/** The `:name` of a route; jupyter_server only routes names of word characters, so anything else is unknown (404). */
export function terminalNameParam(c: Ctx): string {
  const name = terminalNameOf(c);
  if (name === undefined) throw notFound(`Terminal not found: ${(c.req.param('name') ?? '').slice(0, 100)}`);
  return name;
}

/** The terminal manager, or `undefined` when terminals are off (the route then falls through to a 404). */
export function terminalManager(c: Ctx): TerminalManager | undefined {
  return c.get('services').terminals?.manager;
}

/**
 * `/api/terminals` as jupyter_server (jupyter_server_terminals) serves it: list, create (200 with
 * the model; names `1`, `2`, … unless the body names one), get, delete (204). With terminals off
 * every route is a 404.
 */
export function registerTerminalRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api/terminals', (c, next: Next) => {
    const terminals = terminalManager(c);
    return terminals ? c.json(terminals.list()) : next();
  });

  app.post('/api/terminals', async (c, next: Next) => {
    const terminals = terminalManager(c);
    if (!terminals) return next();
    const raw = await readJsonBody(c);
    if (Array.isArray(raw)) throw badRequest('The request body must be a JSON object');
    const body = parseWith(CreateBody, raw, 'request body');
    const terminal = await terminals.create({ name: body?.name ?? undefined, cwd: body?.cwd ?? undefined });
    recordAudit(c, 'terminal.start', { terminal: terminal.name, cwd: body?.cwd ?? null });
    return c.json(terminal.model(), 200);
  });

  app.get('/api/terminals/:name', (c, next: Next) => {
    const terminals = terminalManager(c);
    return terminals ? c.json(terminals.get(terminalNameParam(c)).model()) : next();
  });

  app.delete('/api/terminals/:name', async (c, next: Next) => {
    const terminals = terminalManager(c);
    if (!terminals) return next();
    const name = terminalNameParam(c);
    await terminals.terminate(name); // the audit log's terminal.stop comes from the manager's removal
    return c.body(null, 204);
  });
}
