import { badRequest, escapeHtml } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import { recordAudit, recordFailedLogin } from '../../audit/record.js';
import { ensureXsrfCookie, setLoginCookie } from '../../auth/cookies.js';
import { safeNextPath } from '../../auth/safe-next.js';
import type { NbserveEnv } from '../../env.js';
import { parseWith } from '../../validate.js';
import { AUTH_PAGE_CSP, authPage } from './auth-page.js';

type Ctx = Context<NbserveEnv>;

const LoginForm = v.object({
  password: v.optional(v.pipe(v.string(), v.maxLength(1024)), ''),
  next: v.optional(v.string()),
});

async function renderLogin(c: Ctx, next: string, error: string | null, passwordSet: boolean): Promise<Response> {
  const xsrf = ensureXsrfCookie(c);
  const action = `${c.get('baseUrl')}login?next=${encodeURIComponent(next)}`;
  const prompt = passwordSet ? 'Password or token' : 'Token';
  const body = `<h1>Log in to nbserve</h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="_xsrf" value="${escapeHtml(xsrf)}">
<label for="password">${prompt}</label>
<input type="password" id="password" name="password" autocomplete="current-password" autofocus required>
<button type="submit">Log in</button>
</form>
<p class="hint">The token is printed in the terminal where nbserve was started. Set a password with <code>nbserve password</code>.</p>`;
  return c.html(authPage('Log in', body), 200, {
    'Content-Security-Policy': AUTH_PAGE_CSP,
    'Cache-Control': 'no-store',
  });
}

/** `GET /login` shows the form (or goes on at once when already logged in); `POST /login` checks it. */
export function registerLoginRoutes(app: Hono<NbserveEnv>): void {
  app.get('/login', async (c) => {
    const next = safeNextPath(c.req.query('next'), c.get('baseUrl'));
    const via = c.get('authVia');
    if (via === 'disabled' || via === 'token' || via === 'cookie') return c.redirect(next, 302);
    return renderLogin(c, next, null, (await c.get('services').auth.passwordHash()) !== '');
  });

  app.post('/login', async (c) => {
    const { auth, options } = c.get('services');
    const raw = await c.req.parseBody().catch(() => {
      throw badRequest('The login form could not be read');
    });
    const form = parseWith(LoginForm, raw, 'login form');
    const next = safeNextPath(c.req.query('next') ?? form.next, c.get('baseUrl'));
    if (c.get('authVia') === 'disabled') return c.redirect(next, 302);
    if (await auth.checkCredential(form.password)) {
      await setLoginCookie(c);
      recordAudit(c, 'login', { method: 'form' });
      return c.redirect(next, 302);
    }
    options.logger.warn('Failed login attempt');
    recordFailedLogin(c, 'form');
    return renderLogin(c, next, 'Invalid credentials', (await auth.passwordHash()) !== '');
  });
}
