/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  // Shared suites live in test/; unit tests sit next to the code they test.
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/{runbooks,runtime,steps,contracts}/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.tools/'],
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.tools/'],
  // Temporal servers and workflow bundling are slow on two cores.
  testTimeout: 120_000,
  maxWorkers: 2,
};
