import { describeIssue } from '../api';
import { DIALECTS, type Dialect } from '../api/dialect';
import { FAULT_KINDS } from './faults';
import type { FaultConfig } from './model';
import { FaultInput } from './routes/control';
import { SimulatorControlClient } from './control-client';
import { startSimulator, type RunningSimulator, type StartOptions } from './server';
import { parseCommandLine, positionals } from '../operator/args';
import { CliError, UsageError } from '../operator/errors';
import type { OptionValues } from '../operator/command-spec';
import type { CommandSpecAt } from '../operator/command-table';
import { helpFor } from '../operator/help';

const HELP = helpFor('simulator', [`Fault kinds: ${FAULT_KINDS.join(', ')}.`]);

const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/** Each FaultInput field and the flag that sets it, to name the flag in errors. */
const FAULT_FLAGS = {
  rate: 'fault-rate',
  kinds: 'fault-kinds',
  latencyMs: 'fault-latency-ms',
  retryAfterSeconds: 'fault-retry-after',
  pathPrefix: 'fault-path-prefix',
  method: 'fault-method',
  times: 'fault-times',
} as const;

export interface SimulatorFlags {
  options: StartOptions;
  faults?: FaultConfig;
}

/** Reads and checks every flag before anything starts; any mistake is a UsageError with the usage. */
export function parseSimulatorFlags(argv: string[]): SimulatorFlags {
  const { values, positionals: extra } = parseCommandLine(argv, HELP);
  positionals(extra, [], HELP);
  const prefix = values.prefix;
  if (prefix !== '' && !/^\/[A-Za-z0-9._~/-]*$/.test(prefix)) {
    throw new UsageError(`--prefix must be empty or a path starting with '/', got '${prefix}'\n${HELP.usage}`);
  }
  if (!LOG_LEVELS.includes(values['log-level'])) {
    throw new UsageError(
      `--log-level must be one of ${LOG_LEVELS.join(', ')}, got '${values['log-level']}'\n${HELP.usage}`,
    );
  }
  const dialect = values.dialect;
  if (!isDialect(dialect)) {
    throw new UsageError(`--dialect must be one of ${DIALECTS.join(', ')}, got '${dialect}'\n${HELP.usage}`);
  }
  return {
    options: {
      port: integer(values.port, '--port', 0, 65535),
      host: values.host,
      dataDir: values['data-dir'],
      seed: integer(values.seed, '--seed', 0, 2 ** 31),
      prefix,
      tokenTtlSeconds: integer(values['token-ttl'], '--token-ttl', 1, 10 * 365 * 86400),
      logLevel: values['log-level'],
      dialect,
    },
    faults: faultFlags(values),
  };
}

/**
 * The approval policy a simulator started alone has, so that a newcomer sees a restore wait for reviewers as the demo
 * shows it. Tests and the worker's embedded simulator start without one (`startSimulator`), and set their own.
 */
export const STANDALONE_POLICY = {
  operations: ['MPA_OPERATION_RESTORE_RESOURCE'],
  requiredApprovals: 2,
  approvalWindowHours: 24,
  executionWindowHours: 4,
  description: "restores need 2 reviewers (the standalone simulator's default)",
};

/**
 * What `runbooks simulator` starts: the simulator with its fault flags, and the standalone approval policy unless its
 * state (from --data-dir) holds policies already.
 */
export async function startStandaloneSimulator(flags: SimulatorFlags): Promise<RunningSimulator> {
  const sim = await startSimulator(flags.options);
  try {
    if (flags.faults) sim.ctx.state.faults = flags.faults;
    // Through the control API, as the demo sets its own: validated, and saved to --data-dir like any change.
    if (Object.keys(sim.ctx.state.policies).length === 0) {
      await new SimulatorControlClient(sim.baseUrl).call('POST', '/policies', STANDALONE_POLICY);
    }
    return sim;
  } catch (err) {
    await sim.close();
    throw err;
  }
}

/** `runbooks simulator`: runs the local service until SIGINT or SIGTERM. */
export async function simulatorCommand(argv: string[]): Promise<void> {
  const flags = parseSimulatorFlags(argv);
  const sim = await startStandaloneSimulator(flags).catch((err: unknown) => {
    // A port in use or an unreadable --data-dir: the reason, without a stack.
    throw new CliError(`the simulator could not start: ${err instanceof Error ? err.message : String(err)}`);
  });
  // The dialect is named only when it is not the default, so that the usual line stays as documented.
  const dialect = sim.dialect === 'neutral' ? '' : ` dialect=${sim.dialect}`;
  console.log(`simulator listening on ${sim.baseUrl} project=${sim.projectId} clientId=${sim.clientId}${dialect}`);
  const policies = Object.values(sim.ctx.state.policies).map((p) => p.description ?? p.operations.join(', '));
  console.log(`approval policies: ${policies.join('; ')} (DELETE /_simulator/policies removes them)`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function faultFlags(values: OptionValues<CommandSpecAt<'simulator'>>): FaultConfig | undefined {
  const text = (flag: (typeof FAULT_FLAGS)[keyof typeof FAULT_FLAGS]) => values[flag];
  if (text('fault-rate') === undefined) {
    const stray = Object.values(FAULT_FLAGS).find((flag) => text(flag) !== undefined);
    if (stray) throw new UsageError(`--${stray} needs --fault-rate\n${HELP.usage}`);
    return undefined;
  }
  const number = (flag: (typeof FAULT_FLAGS)[keyof typeof FAULT_FLAGS]) => {
    const value = text(flag);
    if (value === undefined) return undefined;
    if (value.trim() === '' || !Number.isFinite(Number(value))) {
      throw new UsageError(`--${flag} must be a number, got '${value}'\n${HELP.usage}`);
    }
    return Number(value);
  };
  const kinds = (text('fault-kinds') ?? '500').split(',').map((k) => k.trim());
  const unknown = kinds.find((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined) {
    throw new UsageError(`--fault-kinds: '${unknown}' is not one of ${FAULT_KINDS.join(', ')}\n${HELP.usage}`);
  }
  const parsed = FaultInput.safeParse({
    rate: number('fault-rate'),
    kinds,
    latencyMs: number('fault-latency-ms'),
    retryAfterSeconds: number('fault-retry-after'),
    pathPrefix: text('fault-path-prefix'),
    method: text('fault-method'),
    times: number('fault-times'),
  });
  if (parsed.success) return parsed.data;
  const { field, problem } = describeIssue(parsed.error, 'faults');
  const key = field.split('.')[1] as keyof typeof FAULT_FLAGS | undefined;
  const flag = key && key in FAULT_FLAGS ? `--${FAULT_FLAGS[key]}` : 'fault flags';
  throw new UsageError(`invalid ${flag}: ${problem}\n${HELP.usage}`);
}

const isDialect = (value: string): value is Dialect => (DIALECTS as readonly string[]).includes(value);

function integer(text: string, flag: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got '${text}'\n${HELP.usage}`);
  }
  return value;
}
