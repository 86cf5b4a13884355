export { Activity } from './activity.js';
export { type CreateAppOptions, createApp, type NbserveApp } from './app.js';
export { Authenticator, type AuthVia } from './auth/authenticator.js';
export { ensureXsrfCookie } from './auth/cookies.js';
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
export { redactUrl } from './middleware/request-log.js';
export type { NbserveOptions } from './options.js';
export {
  DEFAULT_GATEWAY_REQUEST_TIMEOUT,
  DEFAULT_MAX_BODY_SIZE,
  defaultConfigDir,
  defaultDataDir,
  defaultLogger,
  defaultRuntimeDir,
  generateToken,
  type Logger,
  type OptionsInput,
  resolveOptions,
} from './options.js';
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
