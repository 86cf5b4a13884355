import { Hono } from 'hono';
import { compress } from 'hono/compress';
import { TrieRouter } from 'hono/router/trie-router';
import { auditActor } from './audit/request-actor.js';
import { corsGuard } from './auth/cors.js';
import { hostGuard } from './auth/host-guard.js';
import { registerHubRoutes } from './auth/hub/browser.js';
import { authMiddleware } from './auth/middleware.js';
import { CSP_REPORT_PATH, METRICS_PATH } from './auth/paths.js';
import { mountPath } from './base-url.js';
import type { NbserveEnv } from './env.js';
import { errorResponse } from './errors.js';
import { bodyLimit } from './middleware/body-limit.js';
import { contextMiddleware } from './middleware/context.js';
import { fallback } from './middleware/fallback.js';
import { redirectGuard } from './middleware/redirect-guard.js';
import { requestLog } from './middleware/request-log.js';
import { securityHeaders } from './middleware/security-headers.js';
import { type NbserveOptions, type OptionsInput, resolveOptions } from './options.js';
import { registerCellExecuteRoutes } from './routes/api/cell-execute.js';
import { registerClusterRoutes } from './routes/api/clusters.js';
import { registerCollaborationRoutes } from './routes/api/collaboration.js';
import { registerConfigRoutes } from './routes/api/config.js';
import { registerContentsRoutes } from './routes/api/contents.js';
import { registerCspReportRoutes } from './routes/api/csp-report.js';
import { registerKernelRoutes } from './routes/api/kernels.js';
import { registerKernelSpecRoutes } from './routes/api/kernelspecs.js';
import { registerMeRoutes } from './routes/api/me.js';
import { registerNbconvertApiRoutes } from './routes/api/nbconvert.js';
import { registerNotebooksRedirect } from './routes/api/notebooks-redirect.js';
import { registerResourceUsageRoutes } from './routes/api/resource-usage.js';
import { registerSessionRoutes } from './routes/api/sessions.js';
import { registerShutdownRoutes } from './routes/api/shutdown.js';
import { registerSpecRoutes } from './routes/api/spec.js';
import { registerStatusRoutes } from './routes/api/status.js';
import { registerTerminalRoutes } from './routes/api/terminals.js';
import { registerFilesRoutes } from './routes/files.js';
import { registerKernelSpecResourceRoutes } from './routes/kernelspec-resources.js';
import { registerLabFileRoutes } from './routes/lab/files.js';
import { registerLabLicenseRoutes } from './routes/lab/licenses.js';
import { registerLabPageRoutes } from './routes/lab/pages.js';
import { registerLabSettingsRoutes } from './routes/lab/settings.js';
import { registerLabThemeRoutes } from './routes/lab/themes.js';
import { registerLabTranslationRoutes } from './routes/lab/translations.js';
import { registerLabWorkspaceRoutes } from './routes/lab/workspaces.js';
import { registerLegacyRenameTracking } from './routes/legacy/follow-renames.js';
import { registerLegacyKernelRoutes } from './routes/legacy/kernels.js';
import { registerLegacyNotebookRoutes } from './routes/legacy/notebooks.js';
import { registerLegacyPageRoutes } from './routes/legacy/pages.js';
import { registerRstRoutes } from './routes/legacy/rstservice.js';
import { registerMetricsRoutes } from './routes/metrics.js';
import { registerNbconvertRoutes } from './routes/nbconvert.js';
import { registerEditRoutes } from './routes/web/edit.js';
import { registerLoginRoutes } from './routes/web/login.js';
import { registerLogoutRoutes } from './routes/web/logout.js';
import { registerNewNotebookRoutes } from './routes/web/new.js';
import { registerNotebookPageRoutes } from './routes/web/notebooks.js';
import { registerOutputFrameRoutes } from './routes/web/output-frame.js';
import { registerPrintRoutes } from './routes/web/print.js';
import { registerRootRoutes } from './routes/web/root.js';
import { registerTerminalPageRoutes } from './routes/web/terminals.js';
import { registerTreeRoutes } from './routes/web/tree.js';
import { registerViewRoutes } from './routes/web/view.js';
import { createServices, type Services } from './services.js';
import { registerStaticRoutes } from './static.js';
import { registerChannelsRoute } from './ws/channels-route.js';
import { registerCollaborationRoomRoute } from './ws/collaboration-room.js';
import { registerEventsSocketRoute } from './ws/events-route.js';
import { registerTerminalSocketRoute } from './ws/terminal-route.js';

export { resolveOptions };

export type NbserveApp = Hono<NbserveEnv> & {
  readonly services: Services;
  /** Shuts down what this app started (kernels, timers). */
  close(): Promise<void>;
  /** Adds a listener run by `POST /api/shutdown` after services closed (`serve()` stops listening here). */
  onShutdown(listener: () => void | Promise<void>): void;
};

export type CreateAppOptions = OptionsInput & {
  services?: Services;
  /** Called by `POST /api/shutdown` after services are closed; `serve()` stops listening here. */
  onShutdown?: () => void | Promise<void>;
};

/**
 * Hono's default router first tries to compile every route into one RegExp; some of ours
 * (wildcard paths inside routes) it cannot, so it built the trie anyway: use the trie at once.
 */
const newHono = () => new Hono<NbserveEnv>({ router: new TrieRouter() });

/** Builds the nbserve Hono app. Serve it alone, or mount it inside another Hono app. */
export function createApp(input: CreateAppOptions): NbserveApp {
  const { services: given, onShutdown, ...optionsInput } = input;
  const services = given ?? createServices(resolveOptions(optionsInput));
  const api = newHono();
  const shutdownListeners: Array<() => void | Promise<void>> = onShutdown ? [onShutdown] : [];

  // Middleware order matters: context first (everything reads it), then the log, the headers and
  // the redirect guard wrap every response, then the guards from cheapest to the one that reads
  // cookies and bodies.
  api.use('*', contextMiddleware(services));
  api.use('*', requestLog());
  api.use('*', securityHeaders());
  api.use('*', redirectGuard());
  api.use('*', hostGuard());
  api.use('*', corsGuard());
  api.use('*', bodyLimit());
  api.use('*', authMiddleware());
  api.use('*', auditActor());
  api.use('*', async (c, next) => {
    // Status polling, metrics scrapes (the resource-usage status bar's too) and CSP reports are
    // not activity (jupyter_server does the same), everything else is.
    const relPath = c.get('relPath');
    const polling = relPath === '/api/status' || relPath.startsWith('/api/metrics/v1') || relPath === METRICS_PATH;
    if (!polling && relPath !== CSP_REPORT_PATH) {
      services.activity.touch();
    }
    await next();
  });

  // Routes: one registration line per resource.
  registerStatusRoutes(api);
  registerMetricsRoutes(api);
  registerResourceUsageRoutes(api);
  registerSpecRoutes(api);
  registerCspReportRoutes(api);
  registerMeRoutes(api);
  registerConfigRoutes(api);
  registerLegacyRenameTracking(api);
  registerCollaborationRoutes(api); // before the contents routes: its rename tracking wraps them
  registerCollaborationRoomRoute(api);
  registerContentsRoutes(api);
  registerNotebooksRedirect(api);
  registerFilesRoutes(api);
  registerKernelSpecRoutes(api);
  registerKernelSpecResourceRoutes(api);
  registerKernelRoutes(api);
  registerChannelsRoute(api);
  registerCellExecuteRoutes(api);
  registerSessionRoutes(api);
  registerTerminalRoutes(api);
  registerTerminalSocketRoute(api);
  registerEventsSocketRoute(api);
  registerClusterRoutes(api);
  registerNbconvertApiRoutes(api);
  registerNbconvertRoutes(api);
  registerRstRoutes(api);
  registerLegacyNotebookRoutes(api);
  registerLegacyKernelRoutes(api);
  registerLegacyPageRoutes(api);
  registerShutdownRoutes(api, async () => {
    await services.close();
    for (const listener of shutdownListeners) await listener();
  });
  registerHubRoutes(api); // before the local login pages: in hub mode they belong to the hub
  registerLoginRoutes(api);
  registerLogoutRoutes(api);
  registerLabFileRoutes(api);
  registerStaticRoutes(api);
  registerRootRoutes(api);
  registerTreeRoutes(api);
  registerNotebookPageRoutes(api);
  registerEditRoutes(api);
  registerTerminalPageRoutes(api);
  registerPrintRoutes(api);
  registerViewRoutes(api);
  registerNewNotebookRoutes(api);
  registerOutputFrameRoutes(api);
  // JupyterLab asks for these with no-store on every load: the settings list alone is ~130 KB of JSON
  api.use('/lab/api/*', compress());
  registerLabSettingsRoutes(api);
  registerLabWorkspaceRoutes(api);
  registerLabThemeRoutes(api);
  registerLabTranslationRoutes(api);
  registerLabLicenseRoutes(api);
  registerLabPageRoutes(api);

  // Must stay last: trailing-slash redirects and 404s for everything no route matched.
  api.all('*', fallback);
  api.onError((error, c) => errorResponse(c, error));

  const mount = mountPath(services.options.baseUrl);
  const app = (mount === '' ? api : newHono().route(mount, api)) as NbserveApp;
  return Object.assign(app, {
    services,
    close: () => services.close(),
    onShutdown: (listener: () => void | Promise<void>) => {
      shutdownListeners.push(listener);
    },
  });
}

export type { NbserveOptions };
