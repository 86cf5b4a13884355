/**
 * The one `isObject` of nbserve: a JSON object (not null, not an array), as nbformat documents,
 * kernel messages and stored settings are checked. It has no imports, so the browser bundle and
 * the kernel process can take it too (`@nbserve/core/is-object`).
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
