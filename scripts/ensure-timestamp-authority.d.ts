/**
 * sigstore's timestamp-server: TIMESTAMP_SERVER_PATH, or .tools/timestamp-authority-<version>/timestamp-server, built
 * from its Go module when missing. Throws an Error whose `code` is TIMESTAMP_SERVER_PATH_INVALID,
 * TIMESTAMP_SERVER_NOT_FOUND or TIMESTAMP_SERVER_BUILD_FAILED.
 */
export declare function ensureTimestampAuthority(): { path: string; version: string };
export declare const TIMESTAMP_AUTHORITY_VERSION: string;
