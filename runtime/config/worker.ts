import { join } from 'node:path';
import { registerEnvironmentSecrets } from '../env-secrets';
import type { CodecKeys } from '../codec';
import type { WebhookTarget } from '../webhooks';
import { loadCodecKeys } from './codec';
import { ConfigError, type ConfigIssue, type Env, parseEnv } from './env';
import { loadEvidenceKeyFile, loadTimestampAuthority, type TimestampAuthorityConfig } from './evidence';
import { allowSharedKeyFiles } from './key-files';
import { loadWebhookTargets } from './notifications';
import { ProcessEnv, type LogLevelName } from './process';
import { loadServiceConfig, type ServiceConfig } from './service';
import type { TemporalConfig } from './temporal';
import { loadTemporalConfig } from './temporal-load';
import { loadVersioningConfig, type VersioningConfig } from './versioning';

/** The worker's whole configuration, assembled from the concerns. */

export interface Config {
  temporal: TemporalConfig;
  service: ServiceConfig;
  /** Embedded state (dev server database, simulator, address files). */
  dataDir: string;
  outputDir: string;
  logLevel: LogLevelName;
  /** A workflow bundle prebuilt by `npm run build:bundle`; unset: bundled from source at start. */
  workflowBundle?: string;
  /** host:port of the Runtime's Prometheus endpoint (`/metrics`); unset: no endpoint. */
  metricsAddress?: string;
  /** host:port of the worker's health endpoint (`/healthz`, `/readyz`: worker/health-server.ts); unset: none. */
  healthAddress?: string;
  /** Runs kept in the worker's sticky cache; the others (mostly runs that only wait) are evicted and replay on wake. */
  maxCachedWorkflows?: number;
  /** How waits look (RUNBOOKS_WAIT_LOOKS, runtime/activity-deps.ts): inside one watch (the default), or one per attempt. */
  waitLooks?: 'watch' | 'attempts';
  /** Payload encryption keys; undefined: history is plain JSON, as Temporal writes it by default. */
  codecKeys?: CodecKeys;
  /** Worker Versioning; undefined (the default, and locally): the worker is unversioned. */
  versioning?: VersioningConfig;
  /** PKCS#8 PEM Ed25519 key that seals drill reports, created there when missing; unset: one in the data dir. */
  evidenceKeyFile?: string;
  /** RUNBOOKS_TSA_URL: the authority that timestamps evidence; unset: none. */
  timestampAuthority?: TimestampAuthorityConfig;
  /** Notification webhooks (runtime/webhooks.ts); empty or unset: none are sent. */
  webhooks?: WebhookTarget[];
  /** At start, retry an unreachable Temporal this long (RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS), then fail. */
  temporalConnectTimeoutMs?: number;
  /** After SIGTERM, running activities get this long (RUNBOOKS_SHUTDOWN_GRACE_TIME_MS) before they are cancelled. */
  shutdownGraceTimeMs?: number;
  /** RUNBOOKS_ALLOW_SHARED_KEY_FILES: key files that the group or others can read are accepted. */
  allowSharedKeyFiles?: boolean;
}

/** Everything the worker needs; all problems of all groups are reported together. */
export function loadConfig(env: Env = process.env): Config {
  registerEnvironmentSecrets(env);
  const issues: ConfigIssue[] = [];
  const attempt = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...err.issues);
      return undefined;
    }
  };
  const temporal = attempt(() => loadTemporalConfig(env));
  const service = attempt(() => loadServiceConfig(env));
  const rest = attempt(() => parseEnv(ProcessEnv, env));
  const codec = attempt(() => ({ keys: loadCodecKeys(env) }));
  const versioning = attempt(() => ({ config: loadVersioningConfig(env) }));
  const evidence = attempt(() => ({ keyFile: loadEvidenceKeyFile(env), tsa: loadTimestampAuthority(env) }));
  const webhooks = attempt(() => loadWebhookTargets(env));
  const shared = attempt(() => ({ allowed: allowSharedKeyFiles(env) }));
  if (!temporal || !service || !rest || !codec || !versioning || !evidence || !webhooks || !shared) {
    throw new ConfigError(issues);
  }
  return {
    temporal,
    service,
    dataDir: rest.RUNBOOKS_DATA_DIR,
    outputDir: rest.RUNBOOKS_OUTPUT_DIR ?? join(rest.RUNBOOKS_DATA_DIR, 'output'),
    logLevel: rest.LOG_LEVEL,
    workflowBundle: rest.RUNBOOKS_WORKFLOW_BUNDLE,
    metricsAddress: rest.RUNBOOKS_METRICS_ADDRESS,
    healthAddress: rest.RUNBOOKS_HEALTH_ADDRESS,
    maxCachedWorkflows: rest.RUNBOOKS_MAX_CACHED_WORKFLOWS,
    waitLooks: rest.RUNBOOKS_WAIT_LOOKS,
    codecKeys: codec.keys,
    versioning: versioning.config,
    evidenceKeyFile: evidence.keyFile,
    ...(evidence.tsa ? { timestampAuthority: evidence.tsa } : {}),
    webhooks: webhooks.length > 0 ? webhooks : undefined,
    temporalConnectTimeoutMs: rest.RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS,
    shutdownGraceTimeMs: rest.RUNBOOKS_SHUTDOWN_GRACE_TIME_MS,
    ...(shared.allowed ? { allowSharedKeyFiles: true } : {}),
  };
}
