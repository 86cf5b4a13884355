import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { integrationFiles } from './testing/lanes/needs.js';

const REPO = fileURLToPath(new URL('.', import.meta.url));
const ALL = ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'];
/** Files marked `// needs: …` (a kernel, a browser, jupyter_server, JupyterHub): see testing/lanes/needs.ts. */
const INTEGRATION = integrationFiles(REPO);

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
        },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
    ],
  },
});
