#!/usr/bin/env node
// `npm run bench:reliability [-- --trials N --seed S --kinds a,b --dir D --temporal cluster --dialect both]`: kill -9
// trials against separate processes.
import { parseArgs } from 'node:util';
import { closeHttpPools } from '../../api';
import { DIALECT_CHOICES, DIALECT_TRIAL_KINDS, runReliability } from './harness';
import { TRIAL_KINDS, type TrialKind } from './trials';

const USAGE = [
  `usage: bench:reliability [--trials N (default 50)] [--seed S] [--kinds ${TRIAL_KINDS.join(',')}] [--dir D]`,
  `  [--temporal dev-server|cluster] [--dialect ${DIALECT_CHOICES.join('|')}]`,
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
      trials: { type: 'string', default: '50' },
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
  const kinds = values.kinds?.split(',').map((k) => k.trim());
  const unknown = kinds?.filter((k) => !(TRIAL_KINDS as readonly string[]).includes(k)) ?? [];
  if (unknown.length > 0) throw new UsageError(`unknown trial kind ${unknown.join(', ')}`);
  if (values.temporal !== 'dev-server' && values.temporal !== 'cluster')
    throw new UsageError(`--temporal must be dev-server or cluster, got '${values.temporal}'`);
  const dialect = DIALECT_CHOICES.find((d) => d === values.dialect);
  if (!dialect) throw new UsageError(`--dialect must be ${DIALECT_CHOICES.join(', ')}, got '${values.dialect}'`);
  const summary = await runReliability({
    temporal: values.temporal,
    trials: integer(values.trials, '--trials'),
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
