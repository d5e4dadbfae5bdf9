/**
 * The suite's tiers, as jest projects (test/tiers.js says which file runs where; docs/development.md says why):
 * - `npm test` runs `unit`, `e2e` and `public`: every unit-level file and the replay tests, each runbook end to end on
 *   a real dev server, and one e2e file again against the simulator in the real service's public dialect;
 * - `npm run test:full` runs `full`, `public-full` and `reliability`: everything else.
 *
 * The e2e projects share one dev server per jest worker (test/setup/temporal-servers.ts), each file in a namespace of
 * its own. `npx jest <file>` runs a file in every project that holds it; `--selectProjects=<name>` runs one.
 */
const { E2E, PUBLIC, PUBLIC_FULL, FULL, RELIABILITY } = require('./test/tiers');

const files = (paths) => paths.map((path) => `<rootDir>/${path}`);
const escaped = (path) => `<rootDir>/${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

const IGNORED = ['/node_modules/', '/dist/', '/.tools/'];

/** @type {import('jest').Config} */
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testPathIgnorePatterns: IGNORED,
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.tools/'],
};

/** @type {import('jest').Config} */
const withServers = {
  ...shared,
  globalSetup: '<rootDir>/test/setup/temporal-servers.ts',
  globalTeardown: '<rootDir>/test/setup/temporal-servers-teardown.ts',
};

/** The public dialect's files are the neutral ones, told the dialect by test/e2e/public-dialect.ts: not copies. */
const publicDialect = { setupFiles: ['<rootDir>/test/e2e/public-dialect.ts'] };

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: 2,
  // Workflow bundling and process trees are slow on two cores.
  testTimeout: 120_000,
  globalSetup: '<rootDir>/test/setup/run-dir.ts',
  globalTeardown: '<rootDir>/test/setup/run-dir-teardown.ts',
  reporters: ['default', '<rootDir>/test/setup/slowest-files.js'],
  projects: [
    {
      ...shared,
      displayName: 'unit',
      // Shared suites live in test/; unit tests sit next to the code they test.
      testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/{runbooks,runtime,steps,contracts}/**/*.test.ts'],
      testPathIgnorePatterns: [...IGNORED, ...[...E2E, ...FULL, ...RELIABILITY].map(escaped)],
      // A unit-level file that starts a Temporal server fails with a message naming the tiers that may.
      setupFiles: ['<rootDir>/test/setup/unit-tier.ts'],
    },
    { ...withServers, displayName: 'e2e', testMatch: files(E2E) },
    { ...withServers, ...publicDialect, displayName: 'public', testMatch: files(PUBLIC) },
    { ...withServers, displayName: 'full', testMatch: files(FULL) },
    { ...withServers, ...publicDialect, displayName: 'public-full', testMatch: files(PUBLIC_FULL) },
    // Separate processes and servers of their own: nothing shared.
    { ...shared, displayName: 'reliability', testMatch: files(RELIABILITY) },
  ],
};
