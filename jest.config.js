/**
 * Two projects over one set of tests. `neutral` is the whole suite, against the simulator in the specification's
 * vocabulary. `public` runs the e2e files that carry the runbooks' exactly-once and report claims again, against the
 * simulator in the real service's public dialect (spec/interface-facts.md §10): the same files, not copies, told
 * the dialect by test/e2e/public-dialect.ts. `npx jest <file>` runs a file in every project that holds it;
 * `--selectProjects neutral` (or `public`) runs one.
 */

/**
 * The e2e files that run in both dialects: restore, adoption, drill, query and cost export, posture, offboarding, and a
 * drill input discovered on the service.
 */
const BOTH_DIALECTS = [
  'restore',
  'restore-adoption',
  'drill',
  'drill-evidence',
  'drill-recovery-points',
  'exports',
  'focus-export',
  'posture',
  'accounts',
  'inputs-discover',
];

/** @type {import('jest').Config} */
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.tools/'],
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.tools/'],
  // Temporal servers and workflow bundling are slow on two cores.
  testTimeout: 120_000,
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 120_000,
  maxWorkers: 2,
  projects: [
    {
      ...shared,
      displayName: 'neutral',
      // Shared suites live in test/; unit tests sit next to the code they test.
      testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/{runbooks,runtime,steps,contracts}/**/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'public',
      testMatch: [
        ...BOTH_DIALECTS.map((name) => `<rootDir>/test/e2e/${name}.test.ts`),
        // Job records read from the job list as the public dialect writes them.
        '<rootDir>/runtime/job-watcher.test.ts',
      ],
      setupFiles: ['<rootDir>/test/e2e/public-dialect.ts'],
    },
  ],
};
