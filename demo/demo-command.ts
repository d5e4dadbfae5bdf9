import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_EVIDENCE_KEY_FILE } from '../runtime/evidence-key';
import type { Client } from '@temporalio/client';
import {
  DEFAULT_CONSOLE_PORT,
  DEFAULT_TASK_QUEUE,
  LOG_LEVELS,
  type Config,
  type LogLevelName,
} from '../runtime/config';
import { createLogger, installRuntime } from '../worker/logger';
import { startStack, type Stack } from '../worker/stack';
import { parseCommandLine, positionals, wholeNumber } from '../operator/args';
import { CliError, RunFailedError, UsageError } from '../operator/errors';
import { formatDuration } from '../operator/progress';
import { discoverTargets } from './discover';
import { costScenario, postureScenario, drillScenario, queryScenario } from './export-scenarios';
import { Deadline } from './follow';
import { printStep, printSummary, type StepReport } from './report';
import { planScenario } from './plan-scenario';
import { restoreScenario } from './restore-scenario';
import { SimulatorControlClient } from '../simulator/control-client';
import { startSimulator, type RunningSimulator } from '../simulator/server';
import { DIALECTS, type Dialect } from '../api/dialect';
import { helpFor } from '../operator/help';
import { loadTimestampAuthority } from '../runtime/config/evidence';

const HELP = helpFor('demo');

/**
 * What --serve needs of the console (console/serve-command.ts startConsole). The CLI's command table hands it in, so
 * that the demo imports no console code and the console loads only when asked for.
 */
export type StartConsole = (options: {
  client: Client;
  outputDir: string;
  namespace: string;
  port: number;
  temporalUiUrl?: string;
}) => Promise<{ url: string; close(): Promise<void> }>;

/** The demo's log file, in its data directory. */
export const DEMO_LOG = 'demo.log';

/** Simulated job durations: long enough to watch, short enough for a demo. */
const JOB_SECONDS = { backupSeconds: 3, restoreSeconds: 4, querySeconds: 2 };

/**
 * `runbooks demo` (`npm run demo`): a Temporal dev server, the simulator and the worker in this one process, on a
 * fresh temporary data directory, then the runbooks one after the other.
 */
export async function demoCommand(argv: string[], consoleStarter: () => StartConsole): Promise<void> {
  const { values, positionals: rest } = parseCommandLine(argv, HELP);
  positionals(rest, [], HELP);
  // A day at most: longer waits would overflow timers, and a demo never needs them.
  const timeoutSeconds = wholeNumber(values.timeout, '--timeout', 30, 86_400, HELP);
  const dialect = dialectOption(values.dialect);
  const serve = values.serve;
  if (values.port !== undefined && !serve) {
    throw new UsageError(`--port is the console's port: it goes with --serve\n${HELP.usage}`);
  }
  const consolePort =
    values.port === undefined ? DEFAULT_CONSOLE_PORT : wholeNumber(values.port, '--port', 0, 65535, HELP);
  const timestampAuthority = loadTimestampAuthority(process.env);
  const began = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'runbooks-demo-'));
  const wanted = (process.env.LOG_LEVEL ?? '').toLowerCase();
  const logLevel: LogLevelName = (LOG_LEVELS as readonly string[]).includes(wanted) ? (wanted as LogLevelName) : 'warn';
  // Logs (the worker's, Temporal's) go to a file in the data directory: the terminal holds the demo's story only.
  const logFile = join(dir, DEMO_LOG);
  const log = createLogger({ level: logLevel, destination: { file: logFile }, name: 'runbooks-demo' });
  installRuntime(log, logLevel);

  console.log('== Starting a Temporal dev server, the simulator and the worker (bundling workflows takes a moment)');
  // Always local: the demo must not touch a real service or someone's Temporal namespace. The simulator is started
  // here, in the dialect asked for, and the worker reaches it as it would a real service, detecting its dialect.
  const simulator = await startSimulator({
    port: 0,
    host: '127.0.0.1',
    dataDir: join(dir, 'simulator'),
    seed: 1,
    dialect,
  });
  const config: Config = {
    temporal: { namespace: 'default', taskQueue: DEFAULT_TASK_QUEUE, tls: false },
    service: {
      mode: 'remote',
      // As a worker is configured by default: the dialect is read from the service's answers.
      dialect: 'auto',
      baseUrl: simulator.baseUrl,
      projectId: simulator.projectId,
      clientId: simulator.clientId,
      clientSecret: simulator.clientSecret,
      tokenEndpoint: 'json',
      timeoutMs: 30_000,
    },
    dataDir: dir,
    outputDir: join(dir, 'output'),
    logLevel,
    // A time-stamping authority, when the environment names one: the demo's evidence is then dated as a worker's is.
    ...(timestampAuthority ? { timestampAuthority } : {}),
  };
  // The dev server's Web UI only when the console stays up to link each run to it.
  const stack = await startStack(config, { log, persistTemporal: false, ui: serve, shutdownGraceTimeMs: 3_000 }).catch(
    async (err: unknown) => {
      await simulator.close();
      throw err;
    },
  );
  const stopOnSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the demo`);
    void stack
      .shutdown()
      .then(() => simulator.close())
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    console.log(
      `  Temporal ${stack.temporalAddress} (namespace ${stack.namespace}), simulator ${simulator.baseUrl} ` +
        `(${dialect} dialect; the worker detected ${await stack.serviceClient.wireDialect()}), ` +
        `worker on task queue ${stack.taskQueue}; ready after ${formatDuration(Date.now() - began)}`,
    );
    console.log(`  data directory ${dir} (logs: ${logFile})`);
    // The time limit is for the runbooks: a first run may spend minutes fetching the Temporal CLI and bundling.
    const deadline = new Deadline(timeoutSeconds * 1000);
    const workerStopped = stack.run.then(() => {
      throw new RunFailedError('the worker stopped before the demo finished');
    });
    await Promise.race([
      runScenarios(stack, simulator, deadline, config.dataDir, config.outputDir, began, serve),
      workerStopped,
    ]);
    if (serve) {
      // Ctrl-C now ends the demo as asked, not as an interruption.
      process.removeListener('SIGINT', stopOnSignal);
      process.removeListener('SIGTERM', stopOnSignal);
      await serveConsole(consoleStarter(), stack, config.outputDir, consolePort);
    }
  } finally {
    process.removeListener('SIGINT', stopOnSignal);
    process.removeListener('SIGTERM', stopOnSignal);
    console.log('\n== Shutting down');
    await stack.shutdown();
    await simulator.close();
    console.log('  worker, simulator and Temporal dev server stopped');
  }
}

/** The console over the demo's Temporal server and output folder, until Ctrl-C or SIGTERM. */
async function serveConsole(startConsole: StartConsole, stack: Stack, outputDir: string, port: number): Promise<void> {
  const running = await startConsole({
    client: stack.temporalClient,
    outputDir,
    namespace: stack.namespace,
    port,
    temporalUiUrl: stack.uiUrl,
  }).catch((err: unknown) => {
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    throw inUse ? new CliError(`port ${port} is taken: give the console another with --port`) : err;
  });
  console.log(`\n== The console over this demo's runs and reports: ${running.url}/runs`);
  console.log('  Runs, Approvals, Drills, Posture and Exports; Ctrl-C stops the console and the demo.');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await running.close();
}

function dialectOption(value: string): Dialect {
  const dialect = DIALECTS.find((d) => d === value);
  if (!dialect) throw new UsageError(`--dialect must be ${DIALECTS.join(' or ')}, not '${value}'\n${HELP.usage}`);
  return dialect;
}

async function runScenarios(
  stack: Stack,
  simulator: RunningSimulator,
  deadline: Deadline,
  dataDir: string,
  outputDir: string,
  began: number,
  serving: boolean,
): Promise<void> {
  const sim = new SimulatorControlClient(simulator.baseUrl, (message) => new CliError(message));
  await sim.jobsConfig(JOB_SECONDS);
  await sim.addPolicy({
    requiredApprovals: 2,
    approvalWindowHours: 24,
    executionWindowHours: 4,
    description: 'demo: 2 reviewers approve every restore',
  });
  const targets = await discoverTargets(stack.serviceClient, await sim.state());
  const { temporalClient: client, taskQueue } = stack;
  const steps: StepReport[] = [];
  const run = async (title: string, step: () => Promise<StepReport>) => {
    console.log(`\n== ${title}`);
    const report = await step();
    printStep(report, outputDir);
    steps.push(report);
  };

  await run('1. Approval-gated restore of a bucket', () => restoreScenario(client, taskQueue, sim, targets, deadline));
  await run('2. Disaster-recovery drill over three resource types', () =>
    drillScenario(client, taskQueue, targets, deadline, join(dataDir, DEFAULT_EVIDENCE_KEY_FILE)),
  );
  await run('3. Query export from a database snapshot', () => queryScenario(client, taskQueue, targets, deadline));
  await run('4. Cost export for the previous day', () => costScenario(client, taskQueue, deadline));
  await run('5. Backup posture of the inventory', () => postureScenario(client, taskQueue, deadline));
  await run('6. Recovery plan of three tiers, in drill mode', () =>
    planScenario(client, taskQueue, stack.serviceClient, targets, deadline, join(dataDir, DEFAULT_EVIDENCE_KEY_FILE)),
  );
  printSummary(steps, outputDir, Date.now() - began, serving);
  // As `runbooks start --wait`: a drill that completed without passing is a failed run (exit 4), after the summary.
  const failures = steps.flatMap((s) => s.failure ?? []);
  if (failures.length > 0) throw new RunFailedError(failures.join('\n'));
}
