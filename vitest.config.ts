import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@nbserve/source'] },
  ssr: { resolve: { conditions: ['@nbserve/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Terminals start $SHELL as a login shell; a login bash here runs ~/.bashrc (pyenv init), which
    // can stall for a minute. Tests use a plain POSIX shell.
    env: { SHELL: '/bin/sh' },
  },
});
