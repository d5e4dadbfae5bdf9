import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, Connection, type ClientOptions } from '@temporalio/client';
import { codecDataConverter, type CodecKeys } from '../runtime/codec';
import {
  ConfigError,
  dataDirOf,
  loadCodecKeys,
  loadTemporalConfig,
  temporalSettingName,
  type TemporalConfig,
} from '../runtime/config';
import { ADDRESS_FILE } from '../runtime/stack-files';
import { temporalConnectionOptions } from '../runtime/temporal-connection';
import { loadTracing } from '../runtime/tracing';
import { NotConnectedError, UsageError } from './errors';

export interface TemporalSession {
  client: Client;
  address: string;
  namespace: string;
  taskQueue: string;
  close(): Promise<void>;
}

type Env = Record<string, string | undefined>;

/**
 * The address to use: TEMPORAL_ADDRESS or the profile's, or the one the worker wrote when it started an embedded dev
 * server. `configured` says which, for hints.
 */
export function resolveAddress(
  temporal: TemporalConfig,
  env: Env = process.env,
): { address: string; source: string; configured: boolean } {
  if (temporal.address) {
    return { address: temporal.address, source: temporalSettingName(temporal, 'address'), configured: true };
  }
  const file = join(resolve(dataDirOf(env)), ADDRESS_FILE);
  let address: string;
  try {
    address = readFileSync(file, 'utf8').trim();
  } catch {
    throw new NotConnectedError(
      'TEMPORAL_ADDRESS is not set (nor a Temporal profile address) and no embedded Temporal server is running ' +
        `(${file} does not exist).\nStart the worker with \`npm start\`: it starts a local Temporal dev server ` +
        `(usually at 127.0.0.1:7233) and writes its address to ${file}. Or set TEMPORAL_ADDRESS.`,
    );
  }
  return { address, source: file, configured: false };
}

/**
 * A client on the configured (or embedded) Temporal server; configuration problems are usage errors.
 * `connectTimeoutMs` is shorter for callers that must answer at once (shell completion).
 */
export async function connectTemporal(env: Env = process.env, connectTimeoutMs = 5_000): Promise<TemporalSession> {
  let temporal: TemporalConfig;
  let codecKeys: CodecKeys | undefined;
  try {
    temporal = loadTemporalConfig(env);
    codecKeys = loadCodecKeys(env);
  } catch (err) {
    if (err instanceof ConfigError) throw configUsageError(err);
    throw err;
  }
  const { address, source, configured } = resolveAddress(temporal, env);
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...temporalConnectionOptions(temporal, address),
      connectTimeout: connectTimeoutMs,
    });
  } catch (err) {
    if (err instanceof ConfigError) throw configUsageError(err);
    const hint = configured ? `check ${source}` : 'is the worker (`npm start`) still running?';
    throw new NotConnectedError(
      `cannot reach Temporal at ${address} (from ${source}): ${(err as Error).message}; ${hint}`,
    );
  }
  // With the worker's keys, the CLI (and the schedules it creates) encrypt what they send and read results.
  const dataConverter = codecDataConverter(codecKeys);
  return {
    client: new Client({
      connection,
      namespace: temporal.namespace,
      ...(dataConverter ? { dataConverter } : {}),
      // With OTEL_* set, `runbooks start` opens the trace that the workflow and its activities continue.
      ...tracingInterceptors(env),
    }),
    address,
    namespace: temporal.namespace,
    taskQueue: temporal.taskQueue,
    close: () => connection.close(),
  };
}

/** A configuration error as a usage error (exit 2); one problem is said on one line, naming its variable. */
function configUsageError(err: ConfigError): UsageError {
  const [only, ...more] = err.issues;
  if (only === undefined || more.length > 0) return new UsageError(err.message);
  return new UsageError(`invalid configuration: ${only.variable}: ${only.message}`);
}

function tracingInterceptors(env: Env): Pick<ClientOptions, 'interceptors'> {
  const tracing = loadTracing('runbooks-cli', env);
  return tracing ? { interceptors: { workflow: [tracing.clientInterceptor()] } } : {};
}

/** Runs a command with a session, closing it afterwards. */
export async function withTemporal<T>(
  fn: (session: TemporalSession) => Promise<T>,
  options: { connectTimeoutMs?: number } = {},
): Promise<T> {
  const session = await connectTemporal(process.env, options.connectTimeoutMs);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}
