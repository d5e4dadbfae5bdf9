#!/usr/bin/env node
// `npm run bench:reliability [-- --trials N --seed S --kinds a,b --dir D --temporal cluster --dialect both]`: kill -9
// trials against separate processes. `--only a,b [--runs N]`: just those kinds, N times each (default once).
import { parseArgs } from 'node:util';
import { closeHttpPools } from '../../api';
import { DIALECT_CHOICES, DIALECT_TRIAL_KINDS, runReliability } from './harness';
import { ON_REQUEST_KINDS, TRIAL_KINDS, type TrialKind } from './trials';

const USAGE = [
  `usage: bench:reliability [--trials N (default 50)] [--seed S] [--kinds ${TRIAL_KINDS.join(',')}] [--dir D]`,
  `  [--only kind,kind [--runs N]] [--temporal dev-server|cluster] [--dialect ${DIALECT_CHOICES.join('|')}]`,
  `  --kinds: the kinds drawn from (default: all but ${ON_REQUEST_KINDS.join(', ')}, which run when named)`,
  `  --only: just these kinds, each --runs times (default 1), unless --trials says how many trials in all`,
  `  --dialect: the simulator's dialect; with both (the default), every kind runs in the neutral dialect and`,
  `  ${DIALECT_TRIAL_KINDS.join(' and ')} run in the public one too, each dialect on a stack of its own`,
].join('\n');

function integer(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${flag} must be a positive integer, got '${text}'`);
  return value;
}

class UsageError extends Error {}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      trials: { type: 'string' },
      only: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string', default: String(Date.now() % 100_000) },
      kinds: { type: 'string' },
      dir: { type: 'string' },
      temporal: { type: 'string', default: 'dev-server' },
      dialect: { type: 'string', default: 'both' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.only && values.kinds) throw new UsageError('--only and --kinds: give one of them');
  if (values.runs && !values.only) throw new UsageError('--runs goes with --only');
  const kinds = (values.only ?? values.kinds)?.split(',').map((k) => k.trim());
  const unknown = kinds?.filter((k) => !(TRIAL_KINDS as readonly string[]).includes(k)) ?? [];
  if (unknown.length > 0) throw new UsageError(`unknown trial kind ${unknown.join(', ')}`);
  if (values.temporal !== 'dev-server' && values.temporal !== 'cluster')
    throw new UsageError(`--temporal must be dev-server or cluster, got '${values.temporal}'`);
  const dialect = DIALECT_CHOICES.find((d) => d === values.dialect);
  if (!dialect) throw new UsageError(`--dialect must be ${DIALECT_CHOICES.join(', ')}, got '${values.dialect}'`);
  const summary = await runReliability({
    temporal: values.temporal,
    trials: values.trials
      ? integer(values.trials, '--trials')
      : values.only
        ? (kinds?.length ?? 1) * integer(values.runs ?? '1', '--runs')
        : 50,
    seed: integer(values.seed, '--seed'),
    kinds: kinds as TrialKind[] | undefined,
    dir: values.dir,
    dialect,
  });
  await closeHttpPools();
  return summary.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(usage ? `${(err as Error).message}\n${USAGE}\n` : `${String((err as Error).stack ?? err)}\n`);
    process.exit(usage ? 2 : 1);
  },
);
