// needs: browser
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../../testing/chromium.js';
import { startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

let running: TestServer;
let browser: Browser;
let evil: http.Server;
let evilUrl: string;

beforeAll(async () => {
  running = await startServer();
  browser = await launchChromium();
  // Another origin on the same machine (same site, other port): the attacker's page.
  const target = running.url;
  evil = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    if (req.url === '/fetch') {
      res.end(`<script>
        fetch(${JSON.stringify(`${target}api/config/stolen`)}, { method: 'PUT', credentials: 'include', body: '{"pwned":1}' })
          .then((r) => { document.title = 'status ' + r.status; }, () => { document.title = 'blocked'; });
      </script>`);
    } else {
      res.end(`<form id="f" method="POST" action="${target}api/config/stolen" enctype="text/plain">
        <input name='{"pwned":1, "x":"' value='"}'></form><script>document.getElementById('f').submit()</script>`);
    }
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => evil?.close(resolve));
  await running?.close();
});

async function stolenSection(): Promise<unknown> {
  const res = await fetch(`${running.url}api/config/stolen`, { headers: { Authorization: `token ${TOKEN}` } });
  return res.json();
}

describe('login and logout in a real browser', () => {
  it('walks through redirect to login, a wrong token, the right token, the page, and logout', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });

    await page.goto(`${running.url}api/status`);
    expect(await page.textContent('body')).toContain('Forbidden');

    const login = await page.goto(`${running.url}tree`);
    expect(login?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/tree');
    // The inline stylesheet is allowed by its hash: the button is styled, and nothing was blocked.
    const background = await page.$eval('button', (b) => getComputedStyle(b).backgroundColor);
    expect(background).toBe('rgb(37, 99, 235)');

    await page.fill('#password', 'not-the-token');
    await page.click('button');
    expect(await page.textContent('.error')).toContain('Invalid credentials');

    await page.fill('#password', TOKEN);
    await Promise.all([page.waitForURL((u) => u.pathname === '/tree'), page.click('button')]);
    const cookies = await context.cookies();
    const loginCookie = cookies.find((c) => c.name.startsWith('username-'));
    expect(loginCookie?.httpOnly).toBe(true);
    expect(loginCookie?.sameSite).toBe('Lax');
    expect(loginCookie?.value).not.toContain(TOKEN);
    const api = await page.goto(`${running.url}api/status`);
    expect(api?.status()).toBe(200);

    await page.goto(`${running.url}logout`);
    expect(await page.textContent('h1')).toBe('Successfully logged out');
    await page.click('a');
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.goto(`${running.url}tree`);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('a ?token= link logs the browser in and leaves no token in the address bar', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${running.url}tree?token=${TOKEN}`);
    expect(page.url()).not.toContain('token');
    expect(new URL(page.url()).pathname).toBe('/tree');
    await context.close();
  });
});

describe('cross-site requests from a logged-in browser', () => {
  it('a script on another origin cannot write through the API, and a form post cannot either', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${running.url}tree?token=${TOKEN}`);
    expect(new URL(page.url()).pathname).toBe('/tree');

    const attacker = await context.newPage();
    await attacker.goto(`${evilUrl}/fetch`);
    await attacker.waitForFunction(() => document.title !== '');
    expect(await attacker.title()).toMatch(/^(blocked|status 40[34])$/);

    const form = await context.newPage();
    const response = form.waitForResponse((r) => r.url().includes('/api/config/stolen'));
    await form.goto(`${evilUrl}/form`);
    expect([403, 404]).toContain((await response).status());

    expect(await stolenSection()).toEqual({});
    await context.close();
  });
});
