/**
 * Returns the absolute path of the Temporal CLI (TEMPORAL_CLI_PATH, .tools/, PATH, or built with Go into .tools/).
 * Throws an Error whose `code` is TEMPORAL_CLI_NOT_FOUND, TEMPORAL_CLI_PATH_INVALID or TEMPORAL_CLI_BUILD_FAILED.
 */
export declare function ensureTemporal(): string;
