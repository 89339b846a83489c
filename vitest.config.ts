import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (pure code and loopback HTTP, no database) and `db` (everything that needs the
 * ledger; its global setup starts the embedded PostgreSQL or uses DATABASE_URL and builds a migrated
 * template database that each test file clones).
 */
// Time limits catch a hung test, they measure nothing (timing targets live in `npm run bench`): they are
// sized for a CI machine whose two cores are shared with other work.
export default defineConfig({
  test: {
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          exclude: ['src/store/**', 'src/http/**', 'src/reports/**', 'node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'db',
          include: ['test/**/*.test.ts', 'src/store/**/*.test.ts', 'src/http/**/*.test.ts', 'src/reports/**/*.test.ts', 'packages/sdk/test/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
    ],
  },
});
