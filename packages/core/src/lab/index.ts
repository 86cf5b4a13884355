export {
  type FederatedExtension,
  type FederatedExtensionEntry,
  findFederatedExtensions,
} from './federated-extensions.js';
export {
  type LicenseBundles,
  type LicenseFormat,
  type LicensePackage,
  licenseReport,
  readLicenseBundle,
} from './licenses.js';
export { mergeObjects, readOverrides } from './overrides.js';
export { LabSettings, type LabSettingsOptions, type PluginSettings, SETTINGS_EXTENSION } from './settings.js';
export { checkWorkspaceName, LabWorkspaces, WORKSPACE_EXTENSION, type Workspace, workspaceSlug } from './workspaces.js';
