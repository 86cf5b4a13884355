// Starts JupyterLab with the extensions this package was built with (package.json
// `jupyterlab.extensions`/`mimeExtensions`, listed in the generated .build/extensions.js) and
// the prebuilt ones the server found, honouring the page config's disabled and deferred lists.
import { JupyterLab } from '@jupyterlab/application';
import { PageConfig } from '@jupyterlab/coreutils';
import { extensions, mimeExtensions } from '../.build/extensions.js';
import '../.build/style.js';

function pluginsOf(module) {
  const exported = module?.__esModule || module?.default ? module.default : module;
  return Array.isArray(exported) ? exported : [exported];
}

/** What the plugin manager lists (JupyterLab.IPluginInfo): the plugin's metadata, not its code. */
function pluginInfo(plugin, extension, enabled) {
  const token = (t) => ({ name: t.name, description: t.description });
  return {
    id: plugin.id,
    description: plugin.description,
    autoStart: plugin.autoStart,
    requires: (plugin.requires ?? []).map(token),
    optional: (plugin.optional ?? []).map(token),
    provides: plugin.provides ? token(plugin.provides) : null,
    extension,
    enabled,
  };
}

export async function main(federated) {
  const disabled = { patterns: PageConfig.Extension.disabled, matches: [] };
  const deferred = { patterns: PageConfig.Extension.deferred, matches: [] };
  const availablePlugins = [];
  const ignorePlugins = [];
  const keep = (extension, module) =>
    pluginsOf(module).filter((plugin) => {
      const enabled = !PageConfig.Extension.isDisabled(plugin.id);
      availablePlugins.push(pluginInfo(plugin, extension, enabled));
      if (!enabled) {
        disabled.matches.push(plugin.id);
        return false;
      }
      if (PageConfig.Extension.isDeferred(plugin.id)) {
        deferred.matches.push(plugin.id);
        ignorePlugins.push(plugin.id);
      }
      return true;
    });

  // A prebuilt extension with the name of a built-in one replaces it, as in JupyterLab.
  const replaced = new Set(federated.map((extension) => extension.name));
  const plugins = [];
  const mimePlugins = [];
  for (const { name, module } of extensions) if (!replaced.has(name)) plugins.push(...keep(name, module));
  for (const { name, module } of mimeExtensions) if (!replaced.has(name)) mimePlugins.push(...keep(name, module));
  for (const extension of federated) {
    try {
      if (extension.extension) plugins.push(...keep(extension.name, await extension.extension));
      if (extension.mimeExtension) mimePlugins.push(...keep(extension.name, await extension.mimeExtension));
      await extension.style;
    } catch (error) {
      console.error(`Failed to load the extension ${extension.name}`, error);
    }
  }

  const lab = new JupyterLab({ mimeExtensions: mimePlugins, disabled, deferred, availablePlugins });
  lab.registerPlugins(plugins);
  await lab.start({ ignorePlugins, bubblingKeydown: true });
  if (String(PageConfig.getOption('exposeAppInBrowser')).toLowerCase() === 'true') {
    window.jupyterapp = lab;
  }
  await lab.restored;
}
