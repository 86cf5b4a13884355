// The few page-config reads needed before the shared @jupyterlab/coreutils is available.
const element = document.getElementById('jupyter-config-data');
const config = element ? JSON.parse(element.textContent || '{}') : {};

function list(name) {
  const value = config[name];
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && value.startsWith('[')) return JSON.parse(value);
  return [];
}

export const PageConfig = {
  labextensionsUrl: () => String(config.fullLabextensionsUrl ?? '').replace(/\/$/, ''),
  federatedExtensions: () => list('federated_extensions'),
  /** As @jupyterlab/coreutils' PageConfig.Extension.isDisabled: a plugin id or its package's name. */
  isDisabled: (id) => list('disabledExtensions').some((entry) => entry === id || entry === id.split(':')[0]),
};
