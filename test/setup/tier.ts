/** Set to `unit` in the unit tier's files (test/setup/unit-tier.ts): they may not start a Temporal server. */
export const TIER_ENV = 'RUNBOOKS_TEST_TIER';
