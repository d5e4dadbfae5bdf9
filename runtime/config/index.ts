import { CLI_SETTINGS } from './cli';
import { CODEC_SETTINGS } from './codec';
import { CODEC_SERVER_SETTINGS } from './codec-server';
import { CONSOLE_SETTINGS } from './console';
import type { SettingDoc } from './env';
import { EVIDENCE_SETTINGS } from './evidence';
import { KEY_FILE_SETTINGS } from './key-files';
import { NOTIFICATION_SETTINGS } from './notifications';
import { PROCESS_SETTINGS } from './process';
import { SERVICE_SETTINGS } from './service';
import { TEMPORAL_SETTINGS } from './temporal';
import { TRACING_SETTINGS } from './tracing';
import { VERSIONING_SETTINGS } from './versioning';

/**
 * The worker's and the CLI's configuration, from the environment only (twelve-factor): every variable is validated
 * by the module of its concern, and every problem is reported with the variable's name. `.env.example` is a template;
 * docs/configuration.md documents each variable, as each module's table of docs lines says
 * (test/docs/configuration.test.ts checks the page against them). worker.ts assembles the worker's whole `Config`.
 */

export { ConfigError, type ConfigIssue, type SettingDoc } from './env';
export {
  DEFAULT_TASK_QUEUE,
  temporalSettingName,
  type TemporalConfig,
  type TemporalSetting,
  type TlsSettings,
} from './temporal';
export { loadTemporalConfig } from './temporal-load';
export { DEFAULT_TIMEOUT_MS, loadServiceConfig, type ServiceConfig } from './service';
export {
  DEFAULT_VERSIONING_MODE,
  loadVersioningConfig,
  VERSIONING_MODES,
  type VersioningConfig,
  type VersioningMode,
} from './versioning';
export {
  dataDirOf,
  DEFAULT_MAX_CACHED_WORKFLOWS,
  DEFAULT_SHUTDOWN_GRACE_TIME_MS,
  DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS,
  LOG_LEVELS,
  type LogLevelName,
} from './process';
export { allowSharedKeyFiles } from './key-files';
export { loadCodecKeys } from './codec';
export { loadEvidenceKeyFile } from './evidence';
export { loadWebhookTargets } from './notifications';
export { loadCodecServerAccess, type CodecServerAccess } from './codec-server';
export { DEFAULT_CONSOLE_PORT, loadConsoleSettings, loadConsoleToken, type ConsoleSettings } from './console';
export { loadConfig, type Config } from './worker';

/** Every module's docs lines, by the module's file under runtime/config/, in the order of docs/configuration.md. */
export const SETTING_TABLES: Readonly<Record<string, readonly SettingDoc[]>> = {
  'temporal.ts': TEMPORAL_SETTINGS,
  'service.ts': SERVICE_SETTINGS,
  'process.ts': PROCESS_SETTINGS,
  'versioning.ts': VERSIONING_SETTINGS,
  'tracing.ts': TRACING_SETTINGS,
  'codec.ts': CODEC_SETTINGS,
  'codec-server.ts': CODEC_SERVER_SETTINGS,
  'key-files.ts': KEY_FILE_SETTINGS,
  'evidence.ts': EVIDENCE_SETTINGS,
  'notifications.ts': NOTIFICATION_SETTINGS,
  'cli.ts': CLI_SETTINGS,
  'console.ts': CONSOLE_SETTINGS,
};
