import { openSync, writeSync } from 'node:fs';
import { IllegalStateError, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import pino, { type DestinationStream, type Logger } from 'pino';
import { redact, REDACTED } from '../api';
import type { LogLevelName } from '../runtime/config';
import { prometheusMetrics } from './metrics';

export type { Logger } from 'pino';

/** Structured fields that hold secrets wherever they appear; values are replaced before serialisation. */
const SECRET_PATHS = [
  'authorization',
  'headers.authorization',
  '*.authorization',
  '*.headers.authorization',
  'clientSecret',
  '*.clientSecret',
  'client_secret',
  '*.client_secret',
  'accessToken',
  '*.accessToken',
  'access_token',
  '*.access_token',
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'privateKey',
  '*.privateKey',
  'clientKeyData',
  '*.clientKeyData',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'token',
  '*.token',
];

export interface LoggerOptions {
  level: LogLevelName;
  /** The worker logs to stdout; the demo writes its log lines to a file (`{ file }`), away from its story. */
  destination?: 'stdout' | 'stderr' | { file: string };
  name?: string;
}

/**
 * A pino (JSON) logger. Known fields are redacted by path; then every serialised line passes through `redact()`,
 * which removes registered secrets and issued tokens wherever they hide (messages, error stacks, nested metadata).
 */
export function createLogger(options: LoggerOptions): Logger {
  const stream: DestinationStream = { write: writerTo(options.destination) };
  return pino(
    {
      name: options.name ?? 'backup-runbooks',
      level: options.level,
      redact: { paths: SECRET_PATHS, censor: REDACTED },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    },
    stream,
  );
}

/** Writes each line, after `redact()`; a file is appended to synchronously, so that no line is lost at exit. */
function writerTo(destination: LoggerOptions['destination']): (line: string) => void {
  if (typeof destination === 'object') {
    const fd = openSync(destination.file, 'a');
    return (line) => writeSync(fd, redact(line));
  }
  const out = destination === 'stderr' ? process.stderr : process.stdout;
  return (line) => void out.write(redact(line));
}

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** Temporal's logger interface over pino: SDK, workflow and activity logs become JSON lines like ours. */
export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly target: Logger) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    this.target[PINO_LEVEL[level]](meta ?? {}, message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

function temporalLevel(level: LogLevelName): LogLevel {
  switch (level) {
    case 'trace':
      return 'TRACE';
    case 'debug':
      return 'DEBUG';
    case 'info':
      return 'INFO';
    case 'warn':
      return 'WARN';
    default:
      return 'ERROR';
  }
}

/**
 * Installs the process-wide Temporal Runtime with the pino logger, forwarding the native core's logs to it too, and
 * with a Prometheus endpoint at `metricsAddress` when given.
 * Must run before the first connection; a Runtime that exists already is kept (returns false).
 */
export function installRuntime(logger: Logger, level: LogLevelName, metricsAddress?: string): boolean {
  const wanted = temporalLevel(level);
  // Core's INFO lines are about polling internals; they only help when debugging.
  const core: LogLevel = wanted === 'INFO' ? 'WARN' : wanted;
  try {
    Runtime.install({
      logger: new PinoTemporalLogger(logger.child({ component: 'temporal' })),
      telemetryOptions: {
        logging: { forward: {}, filter: { core, other: 'ERROR' } },
        ...(metricsAddress === undefined ? {} : { metrics: prometheusMetrics(metricsAddress) }),
      },
    });
    return true;
  } catch (err) {
    if (err instanceof IllegalStateError) return false;
    throw err;
  }
}
