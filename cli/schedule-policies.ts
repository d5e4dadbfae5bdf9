import { ScheduleOverlapPolicy } from '@temporalio/client';
import { UsageError } from '../operator/errors';
import { OVERLAP_NAMES, type OverlapName } from '../contracts/runbook';

/** Temporal's overlap policy of each name `--overlap` takes (contracts/runbook.ts lists them). */
export const OVERLAP_POLICIES = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'terminate-other': ScheduleOverlapPolicy.TERMINATE_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
} as const satisfies Record<OverlapName, ScheduleOverlapPolicy>;

/** What `backfill` uses unless told otherwise: every missed time runs, one after another, none skipped. */
export const BACKFILL_OVERLAP: OverlapName = 'buffer-all';

/** The lower-case name of Temporal's policy, as `--overlap` and `describe` show it. */
export function overlapName(policy: ScheduleOverlapPolicy): OverlapName | undefined {
  return OVERLAP_NAMES.find((name) => OVERLAP_POLICIES[name] === policy);
}

/** `--overlap`'s value, or a usage error listing the policies. */
export function overlapArgument(value: string, usage: string): OverlapName {
  const name = OVERLAP_NAMES.find((n) => n === value.trim());
  if (name) return name;
  throw new UsageError(`--overlap must be one of ${OVERLAP_NAMES.join(', ')}, not '${value}'\n${usage}`);
}

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;
const DURATION = /^(?:\d+[dhms])+$/;

/** `24h`, `30m`, `1h30m`, `2s`, `1d` (and `0` for none) in milliseconds; undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const value = text.trim();
  if (value === '0') return 0;
  if (!DURATION.test(value)) return undefined;
  let ms = 0;
  for (const [, n, unit] of value.matchAll(/(\d+)([dhms])/g)) ms += Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** Milliseconds as the shortest `1d2h3m4s` form, `0s` for none. */
export function formatDuration(ms: number): string {
  if (ms <= 0) return '0s';
  let rest = Math.round(ms / 1000) * 1000;
  let text = '';
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const n = Math.floor(rest / size);
    if (n > 0) text += `${n}${unit}`;
    rest -= n * size;
  }
  return text || '0s';
}
