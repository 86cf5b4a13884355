import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { pathSegmentsAfter } from '../contents-path.js';

type Ctx = Context<NbserveEnv>;

const PREFIX = '/lab/api/translations';

/** A locale as jupyterlab_server's `is_valid_locale` takes them (`en`, `fr_FR`, `zh-Hans`). */
const LOCALE = /^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*$/;

async function list(c: Ctx) {
  await c.get('services').lab.requireApp();
  return c.json({ data: { en: { displayName: 'English', nativeName: 'English' } }, message: '' });
}

/**
 * jupyterlab_server's translations API (https://jupyterlab-server.readthedocs.io/en/latest/api/rest.html):
 * nbserve ships no language packs, so English is the one language: the list has `en`, and a
 * locale's pack is empty (English is built in), with jupyterlab_server's message for any other.
 */
export function registerLabTranslationRoutes(app: Hono<NbserveEnv>): void {
  app.get(PREFIX, list);
  app.get(`${PREFIX}/`, list);
  app.get(`${PREFIX}/*`, async (c) => {
    await c.get('services').lab.requireApp();
    const locale = pathSegmentsAfter(c, PREFIX).join('/');
    if (locale === 'en' || locale === 'default' || /^en[_-]/i.test(locale)) return c.json({ data: {}, message: '' });
    const shown = locale.slice(0, 40);
    const message = LOCALE.test(locale)
      ? `Language pack '${shown}' not installed!`
      : `Language pack '${shown}' not valid!`;
    return c.json({ data: {}, message });
  });
}
