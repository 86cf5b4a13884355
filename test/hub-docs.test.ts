/**
 * docs/jupyterhub.md and its example image (docs/jupyterhub/Dockerfile) say what the hub test
 * runs: the spawner's command and environment as testing/jupyterhub.ts configures the real hub,
 * one port for the image and both container spawners, every variable and spawner argument nbserve
 * reads.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULTS, HUB_ENV_VARS } from '@nbserve/http';
import { describe, expect, it } from 'vitest';
import { expandAliases } from '../packages/cli/src/command-line-rewrites.js';
import { FLAGS } from '../packages/cli/src/flag-table.js';
import { hubSettings } from '../packages/cli/src/hub-mode.js';
import { hubConfig, NBSERVE_SPAWNER } from '../testing/jupyterhub.js';
import { REPO } from '../testing/repo.js';

const doc = readFileSync(path.join(REPO, 'docs/jupyterhub.md'), 'utf8');
const dockerfile = readFileSync(path.join(REPO, 'docs/jupyterhub/Dockerfile'), 'utf8');
const testConfig = hubConfig(
  '/tmp/hub',
  { proxy: 1, proxyApi: 2, hub: 3 },
  { activityInterval: 2, userTokens: {}, adminToken: 'x' },
);

/** `c.<Class>.<name> = <value>` settings of Python config text, values read as JSON. */
function settings(python: string, name: string): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const match of python.matchAll(new RegExp(`^c\\.(\\w+)\\.${name} = (.+)$`, 'gm'))) {
    found.set(match[1] as string, JSON.parse(match[2] as string));
  }
  return found;
}

describe('docs/jupyterhub.md and its image', () => {
  it('give the spawners the command the hub test runs, and the image runs it', () => {
    expect(settings(testConfig, 'cmd').get('Spawner')).toEqual(NBSERVE_SPAWNER.cmd);
    const documented = settings(doc, 'cmd');
    expect([...documented.keys()].sort()).toEqual(['DockerSpawner', 'KubeSpawner', 'Spawner']);
    for (const cmd of documented.values()) expect(cmd).toEqual(NBSERVE_SPAWNER.cmd);
    const cmds = [...dockerfile.matchAll(/^CMD (.+)$/gm)].map((m) => JSON.parse(m[1] as string));
    expect(cmds).toEqual([NBSERVE_SPAWNER.cmd]);
    const bin = JSON.parse(readFileSync(path.join(REPO, 'packages/cli/package.json'), 'utf8')).bin;
    expect(Object.keys(bin)).toEqual(NBSERVE_SPAWNER.cmd);
  });

  it('set the environment variables the hub test sets', () => {
    const tested = settings(testConfig, 'environment').get('Spawner') as Record<string, string>;
    expect(Object.keys(tested)).toEqual([...NBSERVE_SPAWNER.environment]);
    const documented = settings(doc, 'environment');
    expect([...documented.keys()].sort()).toEqual(['DockerSpawner', 'KubeSpawner', 'Spawner']);
    for (const environment of documented.values()) {
      expect(Object.keys(environment as object)).toEqual([...NBSERVE_SPAWNER.environment]);
    }
    // Everything else comes from the spawner: the image sets none of it, nor does its command.
    expect(dockerfile).not.toMatch(/^ENV .*JUPYTERHUB_/m);
  });

  it('agree on one port, the one nbserve listens on when a container spawner starts it', () => {
    const exposed = [...dockerfile.matchAll(/^EXPOSE (\d+)$/gm)].map((m) => Number(m[1]));
    expect(exposed).toHaveLength(1);
    const port = exposed[0] as number;
    expect([...settings(doc, 'port').entries()]).toEqual([
      ['DockerSpawner', port],
      ['KubeSpawner', port],
    ]);
    expect(DEFAULTS.port).toBe(port);
    const env = {
      JUPYTERHUB_API_TOKEN: 't',
      JUPYTERHUB_CLIENT_ID: 'jupyterhub-user-alice',
      JUPYTERHUB_USER: 'alice',
      JUPYTERHUB_SERVICE_PREFIX: '/user/alice/',
      JUPYTERHUB_SERVICE_URL: `http://0.0.0.0:${port}/user/alice/`,
    };
    expect(hubSettings({}, env)).toMatchObject({ ip: '0.0.0.0', port, baseUrl: '/user/alice/' });
  });

  it('name every variable nbserve reads and every spawner argument it accepts', () => {
    for (const name of HUB_ENV_VARS) expect(doc).toContain(`\`${name}\``);
    const names = new Set(FLAGS.map((f) => f.name));
    for (const arg of [
      '--ip',
      '--port',
      '--notebook-dir',
      '--SingleUserNotebookApp.default_url',
      '--debug',
      '--disable-user-config',
    ]) {
      expect(doc).toContain(`\`${arg}`);
      const flag = (expandAliases([arg])[0] as string).replace(/^--([^=]+).*$/, '$1');
      expect(names.has(flag)).toBe(true);
    }
  });
});
