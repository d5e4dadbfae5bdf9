import { ScheduleOverlapPolicy } from '@temporalio/client';
import { UsageError } from '../operator/errors';
import type { RunbookName } from '../operator/runbooks';

/**
 * How a schedule treats a run that is due while the previous one still runs, as `--overlap` spells it (Temporal's
 * ScheduleOverlapPolicy in lower case).
 */
export const OVERLAP_POLICIES = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'terminate-other': ScheduleOverlapPolicy.TERMINATE_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
} as const;

export type OverlapName = keyof typeof OVERLAP_POLICIES;
export const OVERLAP_NAMES = Object.keys(OVERLAP_POLICIES) as OverlapName[];

export interface ScheduleDefaults {
  overlap: OverlapName;
  /** How late a run that was due during an outage may still start; later than that, it is missed. */
  catchupWindow: string;
  /** Each run starts up to this much after its time, so that schedules set to one minute do not burst together. */
  jitter: string;
}

/**
 * Each runbook's schedule policies, used when `runbooks schedule create` is not told otherwise (the docs' schedules
 * page shows this table). The reasons are in the comments; the CLI prints the values it applied.
 */
export const SCHEDULE_DEFAULTS: Record<RunbookName, ScheduleDefaults> = {
  // A drill still running holds the restore account and the service's restore capacity; a second one would double
  // the load and prove nothing new. A drill more than an hour late would run into working hours: it is missed instead.
  drDrill: { overlap: 'skip', catchupWindow: '1h', jitter: '5m' },
  // Each run exports its own day: one due while the previous export runs waits for it rather than being lost, and a
  // night missed by an outage of under a day still runs (it exports the day it was due for).
  costExport: { overlap: 'buffer-one', catchupWindow: '1d', jitter: '5m' },
  // The same query on a schedule writes the same kind of file; a second while one runs would only compete with it.
  queryExport: { overlap: 'skip', catchupWindow: '1h', jitter: '5m' },
  // A report is a view of now: a late one is still worth having within a working day, a doubled one is not.
  postureReport: { overlap: 'skip', catchupWindow: '6h', jitter: '5m' },
  // A restore may wait days for approvers; a second request while one waits would ask them twice.
  approvalGatedRestore: { overlap: 'skip', catchupWindow: '1h', jitter: '0s' },
  // Offboarding an account twice at once would race its own deletions.
  offboardSourceAccount: { overlap: 'skip', catchupWindow: '1h', jitter: '0s' },
  // Two rotations at once would race for one credential; a rotation missed by an outage is still due a day later.
  rotateCredentials: { overlap: 'skip', catchupWindow: '1d', jitter: '0s' },
};

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
