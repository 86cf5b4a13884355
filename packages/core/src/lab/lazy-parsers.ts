import type { Ajv } from 'ajv';

/**
 * JSON5 and ajv, loaded on first use: only JupyterLab's settings need them, and ajv alone takes
 * longer to load than the rest of a server start.
 */
let json5: Promise<{ parse(text: string): unknown }> | undefined;
let ajv: Promise<Ajv> | undefined;

export function loadJson5(): Promise<{ parse(text: string): unknown }> {
  json5 ??= import('json5').then((module) => module.default);
  return json5;
}

/**
 * A draft-07 validator as jupyterlab_server's: `strict: false` because JupyterLab's schemas carry
 * their own keywords (`jupyter.lab.shortcuts`, ...); formats are not checked, as its
 * Draft7Validator does not check them.
 */
export function loadAjv(): Promise<Ajv> {
  ajv ??= import('ajv').then(
    ({ Ajv }) => new Ajv({ strict: false, validateFormats: false, addUsedSchema: false, allErrors: false }),
  );
  return ajv;
}
