// Which environment variables the worker reads, for the tests of the deployments (compose, the Helm chart) that set
// them: a variable the worker does not read is a typo or a setting that silently does nothing.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTemporalConfig } from '../../runtime/config';
import { ALLOW_SHARED_KEY_FILES } from '../../runtime/key-file-permissions';

const NAME = /(?:^\s+|z\.object\(\{ )([A-Z][A-Z0-9_]+): /gm;
const RUNTIME = join(__dirname, '..', '..', 'runtime');
const namesIn = (file: string) => [...readFileSync(join(RUNTIME, file), 'utf8').matchAll(NAME)].map((m) => m[1]);
/** runtime/config/: a module per concern, each with the zod schema of its variables. */
const CONFIG_MODULES = readdirSync(join(RUNTIME, 'config'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => `config/${f}`);

/**
 * The project's own variables the worker reads: the keys of the zod schemas of the environment in runtime/config/, and
 * of those it delegates to (the webhooks' variables, and the switch for shared key files).
 */
export const CONFIG_NAMES = new Set([
  ...CONFIG_MODULES.flatMap(namesIn),
  ...namesIn('webhooks.ts'),
  ALLOW_SHARED_KEY_FILES,
]);

/** A Temporal variable counts as read when another value changes the connection, or is refused (envconfig reads them). */
export function temporalReads(name: string, env: Record<string, string>): boolean {
  if (!name.startsWith('TEMPORAL_')) return false;
  const other = { ...env, [name]: `${env[name] ?? ''}-other` };
  try {
    return JSON.stringify(loadTemporalConfig(env)) !== JSON.stringify(loadTemporalConfig(other));
  } catch {
    return true;
  }
}

/** The names among `names` that the worker does not read (with `env` as the rest of its environment). */
export const unread = (names: string[], env: Record<string, string> = {}) =>
  names.filter((n) => !CONFIG_NAMES.has(n) && !temporalReads(n, env));
