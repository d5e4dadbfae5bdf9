import { parseArgs } from 'node:util';
import { startSimulator } from '../simulator/server';

const USAGE =
  'usage: runbooks simulator --port <p> [--host 127.0.0.1] [--data-dir <dir>] [--seed <n>] [--prefix /api] ' +
  '[--token-ttl <seconds>] [--log-level <level>]';

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
