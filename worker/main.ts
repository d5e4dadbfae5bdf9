#!/usr/bin/env node
// `npm start`: the worker process. Configuration comes from the environment (see .env.example).
import { join } from 'node:path';
import { redact } from '../api';
import { ConfigError, loadConfig, type Config } from '../runtime/config';
import { createLogger, installRuntime } from './logger';
import { HEARTBEAT_FILE } from './heartbeat';
import { startStack } from './stack';

/** Explains a configuration problem and exits 2; anything else is rethrown. */
function explain(err: unknown): undefined {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`${err.message}\nSee .env.example for every variable.\n`);
  process.exitCode = 2;
  return undefined;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    return explain(err);
  }
  const log = createLogger({ level: config.logLevel });
  installRuntime(log, config.logLevel, config.metricsAddress);

  // A bad credentials or TLS file is found only now; it is reported like the environment's problems.
  const stack = await startStack(config, {
    log,
    writeAddressFiles: true,
    heartbeatFile: join(config.dataDir, HEARTBEAT_FILE),
  }).catch(explain);
  if (!stack) return;

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      // A second Ctrl-C means "now": skip the grace time.
      log.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(130);
    }
    log.info({ signal }, 'shutting down: letting running activities finish');
    void stack.shutdown().then(() => {
      process.exitCode = 0;
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await stack.run;
  } catch (err) {
    log.fatal({ err }, 'the worker failed');
    process.exitCode = 1;
  }
  await stack.shutdown();
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
}

main().catch((err: unknown) => {
  process.stderr.write(`${redact(err instanceof Error ? (err.stack ?? err.message) : String(err))}\n`);
  process.exitCode = 1;
});
