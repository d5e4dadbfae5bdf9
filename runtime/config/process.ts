import { z } from 'zod';
import { mdCode, type Env, HOST_PORT, millis, parseEnv, type SettingDoc, text } from './env';

/** The worker process: its folders, logs, bundle, endpoints, cache, waits, and how it starts and stops. */

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/**
 * Runs a worker keeps in memory (~1.8 MB each). Waiting runs wake rarely, and replaying one from its short history
 * costs milliseconds, so they need not stay cached; the SDK's default, sized from the heap, kept every one of them.
 * With 1,000 waiting runs, a cache of 100 held 635 MB of worker RSS and 50 held 481 MB (bench/waiting).
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 50;

/** How long a starting worker keeps retrying an unreachable Temporal before it gives up (and exits non-zero). */
export const DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS = 60_000;
/** Running activities get this long to finish after SIGTERM; inside Docker's default 10 s stop timeout with cleanup. */
export const DEFAULT_SHUTDOWN_GRACE_TIME_MS = 8_000;

const DEFAULT_DATA_DIR = '.data';

export const ProcessEnv = z.object({
  RUNBOOKS_DATA_DIR: text.default(DEFAULT_DATA_DIR),
  RUNBOOKS_OUTPUT_DIR: text.optional(),
  LOG_LEVEL: z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }))
    .default('info'),
  RUNBOOKS_WORKFLOW_BUNDLE: text.regex(/\.c?js$/, 'must name a .js file written by npm run build:bundle').optional(),
  RUNBOOKS_METRICS_ADDRESS: text.regex(HOST_PORT, 'must be host:port, e.g. 0.0.0.0:9464').optional(),
  RUNBOOKS_HEALTH_ADDRESS: text.regex(HOST_PORT, 'must be host:port, e.g. 0.0.0.0:8080').optional(),
  RUNBOOKS_MAX_CACHED_WORKFLOWS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of runs')
    .transform(Number)
    .pipe(z.number().int().max(100_000, 'must be at most 100000'))
    .default(DEFAULT_MAX_CACHED_WORKFLOWS),
  RUNBOOKS_WAIT_LOOKS: z.enum(['watch', 'attempts'], { error: 'must be watch or attempts' }).default('watch'),
  RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS: millis(0, 3_600_000).default(DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS),
  RUNBOOKS_SHUTDOWN_GRACE_TIME_MS: millis(0, 600_000).default(DEFAULT_SHUTDOWN_GRACE_TIME_MS),
});

/** Where the data directory is, for the CLI (which needs no other setting of the worker). */
export function dataDirOf(env: Env = process.env): string {
  return parseEnv(ProcessEnv.pick({ RUNBOOKS_DATA_DIR: true }), env).RUNBOOKS_DATA_DIR;
}

/** docs/configuration.md, "The worker process" (and the two endpoints, under "Metrics and traces"). */
export const PROCESS_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_DATA_DIR',
    default: mdCode(DEFAULT_DATA_DIR),
    meaning:
      "Each worker's own state: the embedded dev server's database, the simulator's data, address files, the heartbeat",
  },
  {
    name: 'RUNBOOKS_OUTPUT_DIR',
    default: mdCode('$RUNBOOKS_DATA_DIR/output'),
    meaning:
      'Where exports and drill reports are written; shared by every worker of a task queue ' +
      '([deploy](operations/deploy.md#several-workers))',
  },
  {
    name: 'RUNBOOKS_TEMPORAL_CONNECT_TIMEOUT_MS',
    default: mdCode(DEFAULT_TEMPORAL_CONNECT_TIMEOUT_MS),
    meaning:
      'At start, how long to retry a Temporal it cannot reach (0 to 3600000; 0: one attempt) before exiting with ' +
      'code 1',
  },
  {
    name: 'RUNBOOKS_SHUTDOWN_GRACE_TIME_MS',
    default: mdCode(DEFAULT_SHUTDOWN_GRACE_TIME_MS),
    meaning:
      'After SIGTERM or SIGINT, how long running activities get to finish (0 to 600000); the process exits at most 5 ' +
      's later',
  },
  {
    name: 'RUNBOOKS_WORKFLOW_BUNDLE',
    default: 'unset: bundled at start',
    meaning: 'A workflow bundle written by `npm run build:bundle` (the image sets `/app/dist/workflow-bundle.js`)',
  },
  {
    name: 'LOG_LEVEL',
    default: mdCode('info'),
    meaning:
      '`trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`; logs are JSON lines on stdout, with secrets ' +
      'redacted. The demo reads it too',
  },
  {
    name: 'RUNBOOKS_MAX_CACHED_WORKFLOWS',
    default: mdCode(DEFAULT_MAX_CACHED_WORKFLOWS),
    meaning:
      'Runs kept in memory (about 1.8 MB each, at most 100000; 0 turns the cache off); the others, mostly waiting ' +
      'runs, replay from their short history when they wake',
  },
  {
    name: 'RUNBOOKS_WAIT_LOOKS',
    default: mdCode('watch'),
    meaning:
      'How a wait looks: `watch`, every look inside one activity that heartbeats once a minute; `attempts`, one ' +
      "activity task per look (the benchmarks' baseline)",
  },
  {
    name: 'RUNBOOKS_METRICS_ADDRESS',
    default: 'unset: no endpoint',
    meaning: '`host:port` of the Prometheus endpoint (`GET /metrics`), e.g. `0.0.0.0:9464` in a container',
  },
  {
    name: 'RUNBOOKS_HEALTH_ADDRESS',
    default: 'unset: no endpoint',
    meaning:
      '`host:port` of the health endpoint for probes: `GET /healthz` (the heartbeat is fresh) and `GET /readyz` (the ' +
      'worker polls), e.g. `0.0.0.0:8080` ([probes](operations/kubernetes.md#probes))',
  },
];
