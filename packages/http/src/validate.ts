import {
  badRequest,
  describeIssues,
  isNbserveError,
  JsonTooDeepError,
  parseJsonBytes,
  parseUntrustedJson,
  type RawStrings,
  tooLarge,
} from '@nbserve/core';
import type { Context } from 'hono';
import * as v from 'valibot';
import { decodeUtf8, readBodyBytes } from './request-body.js';

/** Parses a value with a valibot schema; failures become a 400 with a readable message. */
export function parseWith<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw badRequest(`Invalid ${what}: ${describeIssues(result.issues)}`);
}

/**
 * Reads the request body as JSON. Returns `undefined` for an empty body, so routes can tell
 * "no body" from "empty object" as Jupyter does. The size limit is enforced by the body-limit
 * middleware in app.ts before this runs.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  return (await readJsonBodyBytes(c, false)).value;
}

/**
 * readJsonBody for a body that may be a big notebook: with `cut`, a body of mostly long strings is
 * parsed from its bytes (see parseJsonBytes), its long strings left there as markers `raw`
 * resolves, until `release()` (call it once done with the value; a no-op otherwise).
 */
export async function readJsonBodyBytes(
  c: Context,
  cut = true,
): Promise<{ value: unknown; raw?: RawStrings; release: () => void }> {
  let body: Awaited<ReturnType<typeof readBodyBytes>>;
  try {
    body = await readBodyBytes(c);
  } catch (error) {
    if (isNbserveError(error)) throw error;
    throw tooLarge('Request body could not be read');
  }
  const parsed = cut ? parseJsonBytes(body.bytes) : null;
  if (parsed) return { value: parsed.value, raw: parsed.raw, release: body.release };
  let text: string;
  try {
    text = decodeUtf8(body.bytes);
  } finally {
    body.release(); // the text is a copy
  }
  return { value: parseBodyText(text), release: () => undefined };
}

function parseBodyText(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return parseUntrustedJson(text);
  } catch (error) {
    const deep = error instanceof JsonTooDeepError ? `: ${error.message}` : '';
    throw badRequest(`Invalid JSON in body of request${deep}`);
  }
}

/** Reads and validates a JSON body; an empty body is parsed as `undefined`. */
export async function parseJsonBody<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  return parseWith(schema, await readJsonBody(c), 'request body');
}
