import { parseArgs } from 'node:util';
import { FaultInput } from '../simulator/routes/control';
import { startSimulator } from '../simulator/server';

const USAGE =
  'usage: runbooks simulator --port <p> [--host 127.0.0.1] [--data-dir <dir>] [--seed <n>] [--prefix /api] ' +
  '[--token-ttl <seconds>] [--log-level <level>] [--fault-rate <0..1> --fault-kinds 500,503,429,reset,latency ' +
  '[--fault-latency-ms <ms>] [--fault-retry-after <s>] [--fault-path-prefix </v1/...>]]';

/** `runbooks simulator`: runs the local service until SIGINT or SIGTERM. */
export async function simulatorCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      'data-dir': { type: 'string' },
      seed: { type: 'string', default: '1' },
      prefix: { type: 'string', default: '' },
      'token-ttl': { type: 'string', default: '43200' },
      'log-level': { type: 'string', default: 'silent' },
      'fault-rate': { type: 'string' },
      'fault-kinds': { type: 'string' },
      'fault-latency-ms': { type: 'string' },
      'fault-retry-after': { type: 'string' },
      'fault-path-prefix': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = integer(values.port, '--port', 0, 65535);
  const seed = integer(values.seed, '--seed', 0, 2 ** 31);
  const tokenTtlSeconds = integer(values['token-ttl'], '--token-ttl', 1, 10 * 365 * 86400);
  const sim = await startSimulator({
    port,
    host: values.host,
    dataDir: values['data-dir'],
    seed,
    prefix: values.prefix,
    tokenTtlSeconds,
    logLevel: values['log-level'],
  });
  if (values['fault-rate'] !== undefined) {
    const faults = FaultInput.safeParse({
      rate: Number(values['fault-rate']),
      kinds: (values['fault-kinds'] ?? '500').split(',').map((k) => k.trim()),
      latencyMs: values['fault-latency-ms'] === undefined ? undefined : Number(values['fault-latency-ms']),
      retryAfterSeconds: values['fault-retry-after'] === undefined ? undefined : Number(values['fault-retry-after']),
      pathPrefix: values['fault-path-prefix'],
    });
    if (!faults.success) {
      await sim.close();
      throw new Error(`invalid fault flags: ${faults.error.issues[0]?.message ?? 'invalid'}\n${USAGE}`);
    }
    sim.ctx.state.faults = faults.data;
  }
  console.log(`simulator listening on ${sim.baseUrl} project=${sim.projectId} clientId=${sim.clientId}`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function integer(text: string | undefined, flag: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${flag} must be an integer from ${min} to ${max}, got '${text}'\n${USAGE}`);
  }
  return value;
}
