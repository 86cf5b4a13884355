import path from 'node:path';
import {
  type FederatedExtension,
  findFederatedExtensions,
  LabSettings,
  LabWorkspaces,
  labExtensionDirs,
  notFound,
} from '@nbserve/core';
import type { NbserveOptions } from '../options.js';
import { defaultLabAppDirs, type LabApp, LabAppLocator } from './app-dir.js';

/** JupyterLab's server side: the built app, settings, workspaces and prebuilt extensions. */
export interface LabServices {
  /** The built app, or `null` when JupyterLab is not built here. */
  app(): Promise<LabApp | null>;
  /** The built app; a 404 saying how to build it when there is none. */
  requireApp(): Promise<LabApp>;
  /** Prebuilt extensions in the `labextensions` folders, read again on each call (as jupyterlab_server does). */
  extensions(): Promise<FederatedExtension[]>;
  /** The `labextensions` folders searched, in order. */
  readonly extensionDirs: readonly string[];
  /** Settings, for the built app's schemas (a 404 when JupyterLab is not built). */
  settings(): Promise<LabSettings>;
  readonly workspaces: LabWorkspaces;
}

export const NOT_BUILT_MESSAGE = 'JupyterLab is not built here: run pnpm build';

/** Built once per app; nothing is read before the first JupyterLab request. */
export function createLabServices(options: NbserveOptions): LabServices {
  const locator = new LabAppLocator(options.labAppDir ? [options.labAppDir] : defaultLabAppDirs());
  const extensionDirs = options.labExtensionsDirs ?? labExtensionDirs();
  const labConfigDir = path.join(options.configDir, 'lab');
  const warn = (message: string) => options.logger.warn(message);
  let settings: { app: LabApp; store: LabSettings } | undefined;
  const extensions = () => findFederatedExtensions(extensionDirs);
  const requireApp = async () => {
    const app = await locator.get();
    if (!app) throw notFound(NOT_BUILT_MESSAGE);
    return app;
  };
  return {
    app: () => locator.get(),
    requireApp,
    extensions,
    extensionDirs,
    async settings() {
      const app = await requireApp();
      if (settings?.app !== app) {
        const store = new LabSettings({
          schemasDir: app.schemasDir,
          userSettingsDir: path.join(labConfigDir, 'user-settings'),
          // the app's own overrides, then the user's (`<config dir>/lab/settings/overrides.json`)
          overridesDirs: [app.settingsDir, path.join(labConfigDir, 'settings')],
          extensionSchemas: async () =>
            new Map((await extensions()).map((extension) => [extension.name, path.join(extension.dir, 'schemas')])),
          warn,
        });
        settings = { app, store };
      }
      return settings.store;
    },
    workspaces: new LabWorkspaces(path.join(labConfigDir, 'workspaces')),
  };
}
