import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@nbserve/source'] },
  ssr: { resolve: { conditions: ['@nbserve/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
