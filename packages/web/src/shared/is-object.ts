/** A JSON object (not null, not an array): what nbformat and stored state are checked with. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
