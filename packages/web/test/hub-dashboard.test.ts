// needs: browser
/**
 * The dashboard of a server JupyterHub started, in Chromium: the browser goes through the hub's
 * OAuth flow (a hub double that approves at once), lands on the dashboard, sees the "Control
 * panel" link to the hub, and "Log out" ends at the hub's logout.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubDouble, startHubDouble } from '../../../testing/hub-double.js';
import { freePort } from '../../../testing/ports.js';
import { hubConfigFromEnv } from '../../http/src/index.js';
import { type Harness, startHarness } from './harness.js';

let hub: HubDouble;
let h: Harness;
let page: Page;

beforeAll(async () => {
  hub = await startHubDouble();
  // The double is the hub on another origin: it sends the browser back to nbserve's full callback URL.
  const port = await freePort();
  const env = hub.env('alice', '/user/alice/', {
    JUPYTERHUB_HOST: hub.url,
    JUPYTERHUB_OAUTH_CALLBACK_URL: `http://127.0.0.1:${port}/user/alice/oauth_callback`,
  });
  h = await startHarness({ baseUrl: '/user/alice/', port, hub: hubConfigFromEnv(env) });
  hub.tokens.set('alice-browser-token', { name: 'alice', scopes: ['access:servers!server=alice/'] });
  hub.authorizeAs = 'alice-browser-token';
  page = await h.newPage();
});

afterAll(async () => {
  await h?.close();
  await hub?.close();
});

describe('the dashboard of a hub-spawned server', () => {
  it('is reached through the hub login and links to the hub control panel', async () => {
    await page.goto(h.url);
    await page.locator('body[data-ready="true"]').waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(`${h.url}tree`);
    const panel = page.getByRole('link', { name: 'Control panel' });
    await expect(panel.getAttribute('href')).resolves.toBe(`${hub.url}/hub/home`);
    expect(hub.requests.map((r) => r.path)).toEqual(
      expect.arrayContaining(['/hub/api/oauth2/authorize', '/hub/api/oauth2/token', '/hub/api/user']),
    );
    const cookies = await h.context.cookies(h.url);
    expect(cookies.find((c) => c.name === 'jupyterhub-user-alice')).toMatchObject({
      httpOnly: true,
      path: '/user/alice/',
    });
  });

  it('logs out of the hub too', async () => {
    await page.getByRole('link', { name: 'Log out' }).click();
    await page.waitForURL(`${hub.url}/hub/logout`);
    const cookies = await h.context.cookies(h.url);
    expect(cookies.some((c) => c.name === 'jupyterhub-user-alice')).toBe(false);
  });
});
