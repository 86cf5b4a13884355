import type { Hono } from 'hono';
import * as v from 'valibot';
import { UPDATABLE_FIELDS } from '../../auth/identity.js';
import type { NbserveEnv } from '../../env.js';
import { parseJsonBody, parseWith } from '../../validate.js';

const PermissionsSchema = v.record(v.string(), v.array(v.string()));

const IdentityPatchSchema = v.strictObject({
  // CSS colors only: a name, #hex, or a functional notation, nothing that could smuggle markup.
  color: v.optional(
    v.nullable(
      v.pipe(v.string(), v.maxLength(64), v.regex(/^(?:#[0-9a-fA-F]{3,8}|[a-zA-Z]+|[a-z]+\([0-9.,%\s/a-z-]*\))$/)),
    ),
  ),
});

function parsePermissions(raw: string | undefined): Record<string, string[]> {
  if (raw === undefined || raw === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = Symbol('invalid');
  }
  return parseWith(PermissionsSchema, parsed, 'permissions (expected a JSON object of string arrays)');
}

/** `GET /api/me` (identity and the permissions asked about) and `PATCH /api/me` (the user's color). */
export function registerMeRoutes(app: Hono<NbserveEnv>): void {
  app.get('/api/me', (c) => {
    const { identity } = c.get('services');
    // A single-user server authorizes its user for everything it is asked about.
    const permissions = { ...parsePermissions(c.req.query('permissions')), updatable_fields: [...UPDATABLE_FIELDS] };
    return c.json({ identity, permissions });
  });
  app.patch('/api/me', async (c) => {
    const { identity } = c.get('services');
    const patch = await parseJsonBody(c, IdentityPatchSchema);
    if (patch.color !== undefined) identity.color = patch.color;
    return c.json({ status: 'success', identity });
  });
}
