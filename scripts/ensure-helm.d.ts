/**
 * Returns helm (HELM_PATH, or .tools/helm-<version>/helm, built with Go from helm.sh/helm/v3 at HELM_VERSION).
 * Throws an Error whose `code` is HELM_PATH_INVALID, HELM_NOT_FOUND or HELM_BUILD_FAILED.
 */
export declare function ensureHelm(): { helm: string; version: string };
export declare const HELM_VERSION: string;
