/**
 * Returns a real Prometheus server and promtool (PROMETHEUS_PATH and PROMTOOL_PATH, or .tools/prometheus-<version>/,
 * built with Go from github.com/prometheus/prometheus at the pinned version).
 * Throws an Error whose `code` is PROMETHEUS_PATH_INVALID, PROMETHEUS_NOT_FOUND or PROMETHEUS_BUILD_FAILED.
 */
export declare function ensurePrometheus(): { prometheus: string; promtool: string; version: string };
/** The pinned version of github.com/prometheus/prometheus. */
export declare const PROMETHEUS_VERSION: string;
