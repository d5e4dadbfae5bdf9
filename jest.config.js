/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/.tools/'],
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.tools/'],
  // Temporal servers and workflow bundling are slow on two cores.
  testTimeout: 120_000,
  maxWorkers: 2,
};
