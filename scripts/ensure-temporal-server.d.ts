/**
 * Returns a real Temporal server and its SQL schema tool (TEMPORAL_SERVER_PATH and TEMPORAL_SQL_TOOL_PATH, or
 * .tools/temporal-server-<version>/, built with Go at the dev server's server version).
 * Throws an Error whose `code` is TEMPORAL_SERVER_PATH_INVALID, TEMPORAL_SERVER_NOT_FOUND or
 * TEMPORAL_SERVER_BUILD_FAILED.
 */
export declare function ensureTemporalServer(): { server: string; sqlTool: string; version: string };
