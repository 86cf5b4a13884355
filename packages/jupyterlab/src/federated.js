// Prebuilt extensions the server found in the Jupyter data paths, as jupyterlab_server lists them
// in the page config: `federated_extensions: [{name, load, extension?, mimeExtension?, style?}]`,
// served under `fullLabextensionsUrl`. Each is a module federation container that registers
// itself as `window._JUPYTERLAB[name]` (what @jupyter/builder and @jupyterlab/builder emit).
import { PageConfig } from './page-config.js';

function loadScript(url) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url;
    script.async = true;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`could not load ${url}`));
    document.head.appendChild(script);
  });
}

async function loadOne(extension, shareScope) {
  await loadScript(`${PageConfig.labextensionsUrl()}/${extension.name}/${extension.load}`);
  const container = window._JUPYTERLAB?.[extension.name];
  if (!container) throw new Error(`${extension.name} did not register a module federation container`);
  await container.init(shareScope);
  const get = async (module) => (await container.get(module))();
  return {
    name: extension.name,
    extension: extension.extension ? get(extension.extension) : undefined,
    mimeExtension: extension.mimeExtension ? get(extension.mimeExtension) : undefined,
    style: extension.style && !PageConfig.isDisabled(extension.name) ? get(extension.style) : undefined,
  };
}

/** Loads every listed extension; one that fails is reported and left out, as in JupyterLab. */
export async function loadFederatedExtensions(shareScope) {
  const listed = PageConfig.federatedExtensions();
  const results = await Promise.allSettled(listed.map((extension) => loadOne(extension, shareScope)));
  const loaded = [];
  for (const [index, result] of results.entries()) {
    if (result.status === 'fulfilled') loaded.push(result.value);
    else console.error(`Failed to load the extension ${listed[index].name}`, result.reason);
  }
  return loaded;
}
