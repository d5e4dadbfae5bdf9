import { redact } from '../api/redact';

/**
 * What `runbooks doctor` reports: one line per check, each `ok`, `warn`, `fail` or `skip`, with a fix for every line
 * that is not ok. The JSON form (`--json`) is this shape, `DOCTOR_REPORT_VERSION` names it, and fields are only ever
 * added to it.
 */

export const DOCTOR_REPORT_VERSION = 1;

/**
 * `ok`: ready. `warn`: works, but worth a look (exit 0). `fail`: a runbook would fail or wait forever (exit 1).
 * `skip`: not checked, because a check it needs failed first (that one carries the fix).
 */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  /** Stable, for scripts: `service.token`, `runbook.drDrill`, `temporal.search-attributes`, … */
  id: string;
  /** What is checked, for people. */
  check: string;
  status: CheckStatus;
  detail: string;
  /** What to do about it; present on every line that is not ok (and on none that is). */
  fix?: string;
}

export interface DoctorReport {
  version: typeof DOCTOR_REPORT_VERSION;
  /** False when any check failed: the exit code is then 1. */
  ok: boolean;
  counts: Record<CheckStatus, number>;
  /** The service checked, and where its address came from. */
  service?: { url: string; projectId?: string; source: string };
  temporal?: { address: string; namespace: string; taskQueue: string; source: string };
  checks: CheckResult[];
}

export const ok = (id: string, check: string, detail: string): CheckResult => ({ id, check, status: 'ok', detail });

export const warn = (id: string, check: string, detail: string, fix: string): CheckResult => ({
  id,
  check,
  status: 'warn',
  detail,
  fix,
});

export const fail = (id: string, check: string, detail: string, fix: string): CheckResult => ({
  id,
  check,
  status: 'fail',
  detail,
  fix,
});

export const skip = (id: string, check: string, because: string): CheckResult => ({
  id,
  check,
  status: 'skip',
  detail: `not checked: ${because}`,
  fix: `fix the failed line above first`,
});

/** Thrown by `bounded` when a check runs past its time. */
export class CheckTimeout extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${Math.round(ms / 100) / 10} s`);
    this.name = 'CheckTimeout';
  }
}

/**
 * Runs `work` for at most `ms`: an unreachable service or server fails its line instead of hanging the command. The
 * work is told through `signal` when its time is up, so that it stops what it still has in flight.
 */
export async function bounded<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new CheckTimeout(ms));
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** A check's own error as one line of detail (never a stack, never a secret). */
export function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return redact(message.split('\n')[0] ?? message);
}

export function buildReport(
  checks: CheckResult[],
  context: Pick<DoctorReport, 'service' | 'temporal'> = {},
): DoctorReport {
  const counts: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0, skip: 0 };
  for (const c of checks) counts[c.status] += 1;
  // Secrets never reach the terminal or a JSON consumer, whatever a detail quotes.
  const clean = checks.map((c) => ({
    ...c,
    detail: redact(c.detail),
    ...(c.fix === undefined ? {} : { fix: redact(c.fix) }),
  }));
  return { version: DOCTOR_REPORT_VERSION, ok: counts.fail === 0, counts, ...context, checks: clean };
}

const MARK: Record<CheckStatus, string> = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** The report as a table: CHECK, STATUS, DETAIL, then each line's fix under it. */
export function renderReport(report: DoctorReport): string {
  const lines: string[] = [];
  if (report.service) {
    const project = report.service.projectId ? `, project ${report.service.projectId}` : '';
    lines.push(`service:  ${report.service.url}${project} (from ${report.service.source})`);
  }
  if (report.temporal) {
    const t = report.temporal;
    lines.push(`temporal: ${t.address}, namespace ${t.namespace}, task queue ${t.taskQueue} (from ${t.source})`);
  }
  if (lines.length > 0) lines.push('');
  const width = Math.max('CHECK'.length, ...report.checks.map((c) => c.check.length));
  lines.push(`${'CHECK'.padEnd(width)}  STATUS  DETAIL`);
  for (const c of report.checks) {
    lines.push(`${c.check.padEnd(width)}  ${MARK[c.status].padEnd(6)}  ${c.detail}`);
    if (c.fix !== undefined && c.status !== 'skip') lines.push(`${''.padEnd(width)}  ${''.padEnd(6)}  fix: ${c.fix}`);
  }
  const { ok: n, warn: w, fail: f, skip: s } = report.counts;
  lines.push('');
  lines.push(
    `${f === 0 ? 'ready' : 'not ready'}: ${n} ok, ${w} warning(s), ${f} failure(s)${s ? `, ${s} not checked` : ''}`,
  );
  return lines.join('\n');
}
