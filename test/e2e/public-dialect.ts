// Jest's `public` project loads this before each of its test files: the e2e fixture then starts the simulator in the
// real service's public dialect and lets the clients detect it (test/e2e/helpers.ts, testDialect()).
process.env.RUNBOOKS_TEST_DIALECT = 'public';
