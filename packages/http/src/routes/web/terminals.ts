import type { Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { terminalManager, terminalNameOf } from '../api/terminals.js';
import { sendPage } from './page-response.js';

/** `GET /terminals/<name>`: the terminal page (Notebook 6's address for it); unknown names are a 404 page. */
export function registerTerminalPageRoutes(app: Hono<NbserveEnv>): void {
  app.get('/terminals/:name', async (c, next) => {
    const name = terminalNameOf(c);
    if (name === undefined || !terminalManager(c)?.has(name)) return next();
    return sendPage(c, 'terminal', `Terminal ${name}`, '', { terminalName: name });
  });
}
