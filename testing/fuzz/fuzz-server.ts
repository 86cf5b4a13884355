import { promises as fs } from 'node:fs';
import path from 'node:path';
import { startServer, type TestServer } from '../server.js';
import { makeTempDir } from '../temp.js';
import type { Secrets } from './credentials.js';
import { type RouteTemplate, routeTable, type Targets } from './routes.js';
import { entryForSeed } from './settings.js';
import { layOutWorld, resetRoot } from './world.js';

/** A real listening nbserve over the fuzz world, with the kernels and ids the fuzzer needs. */
export interface FuzzServer {
  server: TestServer;
  port: number;
  /** `127.0.0.1:<port>`, the Host a same-site client sends. */
  host: string;
  secrets: Secrets;
  routes: RouteTemplate[];
  /** The directory beside the root that nothing may touch. */
  sentinelDir: string;
  /** Kernels no request names: they must still run code after the run. */
  sentinelKernels: Map<string, string>;
  targets: Targets;
  /** Shuts down the kernels requests started (all but the sentinels and the fuzz kernel). */
  tidyKernels(): Promise<void>;
  /** Puts the root back as it started, and the fuzz kernel and session if a request ended them. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server a seed fuzzes: where the seed says it is served (the base-URL matrix), with
 * the built-in JavaScript kernel as default. So that no random request spends seconds in Python,
 * nbconvert and docutils are off (the built-in exporters and renderer answer) and `ipcluster` is
 * a stand-in that succeeds at once and starts nothing.
 */
export async function startFuzzServer(seed: number, sentinelKernelNames: readonly string[]): Promise<FuzzServer> {
  const entry = entryForSeed(seed);
  // An IPython profile to start and stop (with the stand-in ipcluster below).
  const profiles = await makeTempDir('nbserve-fuzz-profiles-');
  await fs.mkdir(path.join(profiles, 'profile_fz'));
  const server = await startServer({
    ...(entry.baseUrl === undefined ? {} : { baseUrl: entry.baseUrl }),
    ...(entry.mountPrefix === undefined ? {} : { mountPrefix: entry.mountPrefix }),
    defaultKernelName: 'javascript',
    kernelSpecDirs: ['/usr/share/jupyter/kernels'],
    nbconvertCommand: false,
    docutilsPython: false,
    ipclusterCommand: ['/bin/sh', '-c', 'exit 0', 'ipcluster'],
    profileSearchDirs: [profiles],
    shutdownWaitTime: 1,
  });
  try {
    const { sentinel: sentinelDir } = await layOutWorld(server.dir, server.root);
    const port = Number(new URL(server.origin).port);
    const host = `127.0.0.1:${port}`;
    const login = await server.fetch(`api/status?token=${server.token}`, { auth: false });
    const loginCookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0] as string)
      .find((c) => !c.startsWith('_xsrf='));
    if (!loginCookie) throw new Error('the server set no login cookie for ?token=');
    const { kernels, sessions, legacyNotebooks } = server.app.services;
    const sentinelKernels = new Map<string, string>();
    for (const name of sentinelKernelNames) sentinelKernels.set((await kernels.start({ name })).id, name);
    const targets: Targets = { kernelId: '', sessionId: '', legacyNotebookIds: [] };
    const ensureFuzzKernel = async () => {
      if (targets.kernelId !== '' && kernels.has(targets.kernelId)) return;
      targets.kernelId = (await kernels.start({ name: 'javascript' })).id;
      const { model } = await sessions.create({
        path: 'fz-session.ipynb',
        type: 'notebook',
        kernel: { id: targets.kernelId },
      });
      targets.sessionId = model.id;
    };
    await ensureFuzzKernel();
    targets.legacyNotebookIds = (await legacyNotebooks.list()).map((e) => e.notebook_id);
    return {
      server,
      port,
      host,
      secrets: { token: server.token, loginCookie },
      routes: routeTable(server.app.routes),
      sentinelDir,
      sentinelKernels,
      targets,
      async tidyKernels() {
        const extra = kernels.list().filter((k) => k.id !== targets.kernelId && !sentinelKernels.has(k.id));
        await Promise.all(extra.map((k) => kernels.shutdown(k.id).catch(() => {})));
      },
      async reset() {
        await resetRoot(server.root, sentinelDir);
        await ensureFuzzKernel();
      },
      async close() {
        await server.close();
        await fs.rm(profiles, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server.close();
    await fs.rm(profiles, { recursive: true, force: true });
    throw error;
  }
}
