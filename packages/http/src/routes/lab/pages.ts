import { escapeHtml, jsonForScript } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { NOT_BUILT_MESSAGE } from '../../lab/lab-services.js';
import { labPageConfig, type PageParams } from '../../lab/page-config.js';
import { pagePath } from '../web/page-response.js';

type Ctx = Context<NbserveEnv>;

/** Workspace names in page URLs, as jupyterlab_server's URL pattern takes them. */
const WORKSPACE_IN_URL = /^[A-Za-z0-9_-]+$/;

const PLACEHOLDERS = /\{\{(page_config|base_url|static_url)\}\}/g;

function notBuilt(c: Ctx): Response {
  const body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>JupyterLab is not built</title></head>\n<body><h1>404: JupyterLab is not built</h1><p>${escapeHtml(NOT_BUILT_MESSAGE)}.</p></body></html>\n`;
  return c.html(body, 404, { 'Content-Security-Policy': "default-src 'none'", 'Cache-Control': 'no-store' });
}

/** A JupyterLab page: the build's `index.html` with the page config, base URL and static URL filled in. */
async function sendLabPage(c: Ctx, params: PageParams): Promise<Response> {
  const lab = c.get('services').lab;
  const app = await lab.app();
  if (!app) return notBuilt(c);
  const config = labPageConfig(c, app, await lab.extensions(), params);
  const base = c.get('baseUrl');
  const values: Record<string, string> = {
    page_config: jsonForScript(config),
    base_url: base,
    static_url: `${base}static/lab/`,
  };
  const html = app.template.replace(PLACEHOLDERS, (_match, name: string) => values[name] ?? '');
  return c.html(html, 200, { 'Cache-Control': 'no-store' });
}

function page(root: '/lab' | '/doc', tree: boolean) {
  const mode: PageParams['mode'] = root === '/doc' ? 'single-document' : 'multiple-document';
  return async (c: Ctx) => {
    const named = c.req.param('workspace');
    if (named !== undefined && !WORKSPACE_IN_URL.test(named)) return c.notFound();
    const prefix = named === undefined ? root : `${root}/workspaces/${named}`;
    const treePath = tree ? pagePath(c, `${prefix}/tree`) : '';
    return sendLabPage(c, { mode, workspace: named ?? 'default', treePath });
  };
}

/**
 * JupyterLab's pages (jupyterlab_server's LabHandler URLs): `/lab`, `/lab/tree/<path>`,
 * `/lab/workspaces/<name>[/tree/<path>]`, and the same under `/doc` in single-document mode.
 */
export function registerLabPageRoutes(app: Hono<NbserveEnv>): void {
  for (const root of ['/lab', '/doc'] as const) {
    app.get(root, page(root, false));
    app.get(`${root}/tree`, page(root, true));
    app.get(`${root}/tree/*`, page(root, true));
    app.get(`${root}/workspaces/:workspace`, page(root, false));
    app.get(`${root}/workspaces/:workspace/tree`, page(root, true));
    app.get(`${root}/workspaces/:workspace/tree/*`, page(root, true));
  }
}
