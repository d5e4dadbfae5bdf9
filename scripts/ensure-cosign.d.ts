/**
 * Returns cosign (COSIGN_PATH, or .tools/cosign-<version>/cosign, built with Go from github.com/sigstore/cosign/v2 at
 * COSIGN_VERSION). Throws an Error whose `code` is COSIGN_PATH_INVALID, COSIGN_NOT_FOUND or COSIGN_BUILD_FAILED.
 */
export declare function ensureCosign(): { cosign: string; version: string };
export declare const COSIGN_VERSION: string;
