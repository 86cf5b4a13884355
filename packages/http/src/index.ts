export { Activity } from './activity.js';
export { type CreateAppOptions, createApp, type NbserveApp } from './app.js';
export { Authenticator, type AuthVia } from './auth/authenticator.js';
export { ensureXsrfCookie } from './auth/cookies.js';
export { HubClient, type HubUser } from './auth/hub/client.js';
export { HUB_ENV_VARS, type HubConfig, hubConfigFromEnv, spawnedByHub } from './auth/hub/config.js';
export { HubAuth } from './auth/hub/hub-auth.js';
export { grantsAccess } from './auth/hub/scopes.js';
export {
  checkApiOrigin,
  checkWebSocketOrigin,
  hostAllowed,
  isLoopbackAddress,
  originAllowedByConfig,
  originMatches,
} from './auth/origin.js';
export { CONFIG_FILE, hashPassword, readUserConfig, storePasswordHash, verifyPassword } from './auth/password.js';
export { isApiPath, isPublicPath } from './auth/paths.js';
export { safeNextPath } from './auth/safe-next.js';
export { rotateSecret } from './auth/secret-file.js';
export {
  COMPUTED_DEFAULTS,
  type ComputedDefaults,
  DEFAULTS,
  type Defaults,
  defaultConfigDir,
  defaultDataDir,
  defaultRuntimeDir,
  generateToken,
} from './defaults.js';
export { type ClosableSocket, Metrics, type WebSocketKind } from './metrics/metrics.js';
export { redactUrl } from './middleware/request-log.js';
export type { NbserveOptions } from './options.js';
export { defaultLogger, type LogFields, type Logger, type OptionsInput, resolveOptions } from './options.js';
export {
  type AttachOptions,
  attachToServer,
  type FetchApp,
  KERNEL_WS_PROTOCOL,
  type ListenOptions,
  listen,
  type RunningServer,
  type ServeOptions,
  selectSubprotocol,
  serve,
} from './serve.js';
export { createServices, type Services } from './services.js';
