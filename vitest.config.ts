import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { integrationFiles } from './testing/lanes/needs.js';

const REPO = fileURLToPath(new URL('.', import.meta.url));
const ALL = ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'];
/** Files marked `// needs: …` (a kernel, a browser, jupyter_server, JupyterHub): see testing/lanes/needs.ts. */
const INTEGRATION = integrationFiles(REPO);
/**
 * Vitest's default is one worker fewer than the cores: on 2 cores one file at a time, while most
 * unit files wait on sockets, child processes and the disk. The unit lane runs at least two files
 * at once (vitest's default on bigger machines).
 */
const UNIT_WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  resolve: { conditions: ['@nbserve/source'] },
  ssr: { resolve: { conditions: ['@nbserve/source'] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Terminals start $SHELL as a login shell; a login bash here runs ~/.bashrc (pyenv init), which
    // can stall for a minute. Tests use a plain POSIX shell.
    env: { SHELL: '/bin/sh' },
    // `pnpm test` runs both; `pnpm test:unit` the first (no kernel, browser, jupyter_server or hub).
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL,
          exclude: ['**/node_modules/**', ...INTEGRATION],
          setupFiles: ['testing/lanes/unit-guard.ts'],
          maxWorkers: UNIT_WORKERS,
          // projects with different worker counts run one after the other: the unit lane first
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION, sequence: { groupOrder: 1 } } },
    ],
  },
});
