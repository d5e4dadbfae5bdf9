#!/usr/bin/env node
// `npm start`: the worker process. Configuration comes from the environment (see .env.example).
//
// It behaves as a service: a fatal start-up error prints one line naming its cause (and the variable at fault) and
// exits non-zero; SIGTERM or SIGINT stops it at any moment, within the grace time; a second signal ends it at once.
// Every exit is explicit: Temporal's Runtime keeps the event loop alive (and takes SIGTERM) once it is installed, so a
// process that only returned from main() would stay up, doing nothing, after a failure.
import { join } from 'node:path';
import type { State } from '@temporalio/worker';
import type { Logger } from 'pino';
import { redact } from '../api';
import { ConfigError, DEFAULT_SHUTDOWN_GRACE_TIME_MS, loadConfig, type Config } from '../runtime/config';
import { TemporalUnreachableError } from './connect-temporal';
import { createLogger, installRuntime } from './logger';
import { HEARTBEAT_FILE } from './heartbeat';
import { startHealthServer, type HealthServer } from './health-server';
import { startStack, type Stack } from './stack';

/** After the grace time, closing connections and flushing traces gets this long before the process exits anyway. */
const CLEANUP_MS = 5_000;

/** Exit codes: a bad setting, anything else that failed, and a stop forced by a second signal (as a shell's Ctrl-C). */
const EXIT_CONFIG = 2;
const EXIT_FAILED = 1;
const EXIT_FORCED = 130;

/** The one line a fatal error prints: its cause, with the variable at fault when a setting is the cause. */
function fatalLine(err: unknown): string {
  if (err instanceof ConfigError) {
    const issues = err.issues.map((i) => `${i.variable}: ${i.message}`).join('; ');
    return `worker cannot start: ${issues} (see .env.example)`;
  }
  if (err instanceof TemporalUnreachableError) return `worker cannot start: ${err.message}`;
  const message = err instanceof Error ? err.message : String(err);
  return `worker failed: ${redact(message.split('\n')[0] ?? '')}`;
}

/** Exits once what was written to stdout and stderr is out (both are synchronous for files and pipes on Linux). */
function exit(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/** The health endpoint when RUNBOOKS_HEALTH_ADDRESS asks for one; a port it cannot take is a setting at fault. */
async function startHealth(
  config: Config,
  heartbeatFile: string,
  workerState: () => State | undefined,
): Promise<HealthServer | undefined> {
  const address = config.healthAddress;
  if (address === undefined) return undefined;
  try {
    return await startHealthServer({ address, heartbeatFile, workerState });
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ConfigError([
      { variable: 'RUNBOOKS_HEALTH_ADDRESS', message: `cannot listen on ${address} (${reason})` },
    ]);
  }
}

function main(): void {
  const stopping = new AbortController();
  let graceMs = DEFAULT_SHUTDOWN_GRACE_TIME_MS;
  let log: Logger | undefined = undefined;
  let stack: Stack | undefined;
  let signals = 0;

  const say = (level: 'info' | 'warn', fields: object, message: string) =>
    log ? log[level](fields, message) : process.stderr.write(`${message}\n`);

  // Installed before anything else, so that a signal during start-up is ours, not Temporal's Runtime's.
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      say('warn', { signal }, 'second signal: exiting without waiting');
      exit(EXIT_FORCED);
      return;
    }
    say('info', { signal, graceMs }, 'shutting down: letting running activities finish');
    stopping.abort(new Error(`stopped by ${signal}`));
    // A stop that hangs (an activity that ignores cancellation, a connection that will not close) ends here.
    setTimeout(() => {
      process.stderr.write(`worker did not stop within ${graceMs + CLEANUP_MS} ms of ${signal}; exiting\n`);
      exit(EXIT_FAILED);
    }, graceMs + CLEANUP_MS).unref();
    void stack?.shutdown().then(() => exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const fail = (err: unknown) => {
    process.stderr.write(`${fatalLine(err)}\n`);
    // The whole error (stack included) only when asked for: the line above is what an operator reads.
    log?.debug({ err }, 'fatal error');
    exit(err instanceof ConfigError ? EXIT_CONFIG : EXIT_FAILED);
  };

  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    fail(err);
    return;
  }
  graceMs = config.shutdownGraceTimeMs ?? graceMs;
  log = createLogger({ level: config.logLevel });
  installRuntime(log, config.logLevel, config.metricsAddress);

  const heartbeatFile = join(config.dataDir, HEARTBEAT_FILE);
  // The health endpoint answers (503, starting) from here on, so probes see a worker that starts, not a closed port.
  startHealth(config, heartbeatFile, () => stack?.worker.getState())
    .then(() => startStack(config, { log, writeAddressFiles: true, heartbeatFile, signal: stopping.signal }))
    .then(
      (started) => {
        stack = started;
        if (stopping.signal.aborted) {
          void started.shutdown().then(() => exit(0));
          return;
        }
        started.run.then(
          // Stopped by a signal, onSignal exits once the stack is down; stopped otherwise, this does.
          () => {
            if (!stopping.signal.aborted) void started.shutdown().then(() => exit(0));
          },
          (err: unknown) => {
            log?.fatal({ err }, 'the worker failed');
            void started.shutdown().finally(() => fail(err));
          },
        );
      },
      (err: unknown) => {
        // startStack stopped what it had started; a stop asked for by a signal is not a failure.
        if (stopping.signal.aborted) {
          log?.info('stopped before start-up completed');
          exit(0);
        } else fail(err);
      },
    );
}

main();
