import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { RestoreJob } from '../../api';
import { restoreKindOf, type RestoreKind } from '../../api/dialect';
import type { ActionRequestRecord } from '../../simulator/model';
import type { ApprovalGatedRestoreResult } from '../../runbooks/approval-gated-restore/contract';
import type { CostExportResult } from '../../runbooks/cost-export/contract';
import type { DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import type { QueryExportResult } from '../../runbooks/query-export/contract';
import { COST_COLUMNS } from '../../runbooks/cost-export/activities';
import { checkOffboarding, checkRotation, type AccountContext } from './account-checks';
import { expectedCostCsv, expectedQueryCsv } from './expected-rows';
import type { RunRecord } from './runs';
import type { SimulatorJobs } from '../../simulator/control-client';
import { snapshotOfRequest } from './persisted-state';

/** What one run did to the service and wrote, against what it should have. */
export interface RunCheck {
  completed: boolean;
  jobs: number;
  /** Jobs beyond the first for one runbook step. */
  duplicateJobs: number;
  /** Result jobs that are not the run's own: wrong type, snapshot or account, or claimed by another run too. */
  foreignAdoptions: number;
  actionRequests: number;
  /** Action requests of the run left unexecuted (e.g. CREATED after a lost answer). */
  strayActionRequests: number;
  /** A protected restore that completed without its own approved request. */
  unapproved: number;
  rows: number;
  lostRows: number;
  duplicateRows: number;
  shaMismatches: number;
  /** Broken invariants. */
  problems: string[];
  /** Worth knowing, but no invariant: e.g. a leftover action request the result did not mention. */
  notes: string[];
}

export interface CheckContext extends AccountContext {
  jobs: SimulatorJobs;
  requests: ActionRequestRecord[];
  /** Simulated time when the trial began: older jobs are not the trial's. */
  since: string;
  /** Every job ID a run's result claimed so far, across trials. */
  claimed: Map<string, string>;
  /**
   * Resources snapshotted during the trial. The simulator prices past hours with a resource's current snapshot size,
   * so their cost rows change when a drill of the same trial backs them up: they are left out of the comparison.
   */
  volatileResources: Set<string>;
}

export function emptyCheck(): RunCheck {
  return {
    completed: false,
    jobs: 0,
    duplicateJobs: 0,
    foreignAdoptions: 0,
    actionRequests: 0,
    strayActionRequests: 0,
    unapproved: 0,
    rows: 0,
    lostRows: 0,
    duplicateRows: 0,
    shaMismatches: 0,
    problems: [],
    notes: [],
  };
}

export async function checkRun(run: RunRecord, ctx: CheckContext): Promise<RunCheck> {
  const check = emptyCheck();
  check.completed = run.status === 'COMPLETED';
  if (!check.completed) check.problems.push(`${run.workflowId} ended ${run.status}: ${run.error ?? ''}`);
  try {
    switch (run.plan.kind) {
      case 'bucket-restore':
      case 'files-restore':
        checkRestore(run, ctx, check);
        break;
      case 'drill':
        await checkDrill(run, ctx, check);
        break;
      case 'query-export':
      case 'cost-export':
        if (check.completed) await checkExport(run, ctx, check);
        break;
      case 'rotation':
        await checkRotation(run, ctx, check);
        break;
      case 'offboarding':
        await checkOffboarding(run, ctx, check);
        break;
    }
  } catch (err) {
    check.completed = false;
    check.problems.push(`${run.workflowId}: its check failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return check;
}

function claim(jobId: string, run: RunRecord, ctx: CheckContext, check: RunCheck): void {
  const other = ctx.claimed.get(jobId);
  if (other !== undefined && other !== run.workflowId) {
    check.foreignAdoptions += 1;
    check.problems.push(`${run.workflowId} claims job ${jobId}, which ${other} claims too`);
  }
  ctx.claimed.set(jobId, run.workflowId);
}

function checkRestore(run: RunRecord, ctx: CheckContext, check: RunCheck): void {
  if (run.plan.runbook !== 'approvalGatedRestore') return;
  const input = run.plan.input;
  // By kind, whatever the dialect names the job's restore type in.
  const kind: RestoreKind = input.kind ?? 'bucket';
  const own = ctx.jobs.restoreJobs.filter(
    (j) =>
      j.snapshotDetails?.id === input.snapshotId &&
      restoreKindOf(j.restoreType) === kind &&
      j.jobExecutionDetails.createdTime >= ctx.since,
  );
  check.jobs = own.length;
  check.duplicateJobs = Math.max(0, own.length - 1);
  if (own.length > 1) check.problems.push(`${run.workflowId}: ${own.length} ${kind} restore jobs for one restore`);

  const requests = ctx.requests.filter((r) => snapshotOfRequest(r) === input.snapshotId);
  if (kind === 'bucket') {
    check.actionRequests = requests.length;
    check.strayActionRequests = requests.filter((r) => r.request.status !== 'EXECUTED').length;
  }
  if (!check.completed) return;

  const result = run.result as ApprovalGatedRestoreResult;
  const leftovers = requests.filter((r) => r.request.status === 'CREATED').length;
  // Older runbooks do not report possible leftovers at all.
  const reported = (result as { possibleLeftoverRequests?: number }).possibleLeftoverRequests ?? 0;
  if (leftovers > reported) {
    check.notes.push(
      `${run.workflowId} left ${leftovers} action request(s) in CREATED; its result reports ${reported}`,
    );
  }
  const jobId = result.job.jobId;
  const job = ctx.jobs.restoreJobs.find((j) => j.jobExecutionDetails.jobId === jobId);
  const mismatch = restoreMismatch(job, kind, input.snapshotId, input.restoreAccountId);
  if (mismatch) {
    check.foreignAdoptions += 1;
    check.problems.push(`${run.workflowId} reports job ${jobId}, which is not its own: ${mismatch}`);
  }
  claim(jobId, run, ctx, check);
  if (kind === 'bucket') {
    // The harness protects every bucket restore with a 2-approval policy: no bucket job without an executed request.
    const requestId = result.approval?.requestId;
    const request = requests.find((r) => r.request.id === requestId);
    if (!requestId || !request || request.request.status !== 'EXECUTED') {
      check.unapproved += 1;
      check.problems.push(
        `${run.workflowId} completed without its own executed action request (result approval: ${requestId ?? 'none'}, ` +
          `${requests.length} request(s) for its snapshot)`,
      );
    }
  }
}

function restoreMismatch(
  job: RestoreJob | undefined,
  kind: RestoreKind,
  snapshotId: string,
  restoreAccountId: string,
): string | undefined {
  if (!job) return 'no such job at the service';
  const wrong: string[] = [];
  if (restoreKindOf(job.restoreType) !== kind) wrong.push(`type ${job.restoreType}, not a ${kind} restore`);
  if (job.snapshotDetails?.id !== snapshotId) wrong.push(`snapshot ${job.snapshotDetails?.id ?? '?'}`);
  if (job.destinationDetails.restoreAccountId !== restoreAccountId) {
    wrong.push(`restore account ${job.destinationDetails.restoreAccountId}`);
  }
  return wrong.length > 0 ? wrong.join(', ') : undefined;
}

async function checkDrill(run: RunRecord, ctx: CheckContext, check: RunCheck): Promise<void> {
  if (run.plan.runbook !== 'drDrill') return;
  const input = run.plan.input;
  const ids = input.resources.ids ?? [];
  const backups = new Map<string, string[]>();
  for (const id of ids) {
    const own = ctx.jobs.backupJobs.filter(
      (j) =>
        j.resourceDetails?.id === id && j.backupType === 'ON_DEMAND' && j.jobExecutionDetails.createdTime >= ctx.since,
    );
    backups.set(
      id,
      own.map((j) => j.jobExecutionDetails.jobId),
    );
    check.jobs += own.length;
    check.duplicateJobs += Math.max(0, own.length - 1);
    if (own.length > 1) check.problems.push(`${run.workflowId}: ${own.length} backup jobs for resource ${id}`);
    const snapshots = new Set(own.flatMap((j) => (j.snapshotDetails?.id ? [j.snapshotDetails.id] : [])));
    // Of its fresh snapshots, or of the resource itself during the trial (a restore of another snapshot counts too).
    const restores = ctx.jobs.restoreJobs.filter(
      (j) =>
        snapshots.has(j.snapshotDetails?.id ?? '') ||
        (j.resourceDetails?.id === id && j.jobExecutionDetails.createdTime >= ctx.since),
    );
    check.jobs += restores.length;
    check.duplicateJobs += Math.max(0, restores.length - 1);
    if (restores.length > 1) check.problems.push(`${run.workflowId}: ${restores.length} restore jobs for ${id}`);
  }
  if (!check.completed) return;

  const result = run.result as DrDrillResult;
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  reportedOnce(run, ids, report, check);
  for (const row of report.resources) {
    if (row.backupJobId) {
      if (!backups.get(row.resourceId)?.includes(row.backupJobId)) {
        check.foreignAdoptions += 1;
        check.problems.push(
          `${run.workflowId} reports backup job ${row.backupJobId} for ${row.resourceId}: not its own`,
        );
      }
      claim(row.backupJobId, run, ctx, check);
    }
    if (row.restoreJobId) {
      const job = ctx.jobs.restoreJobs.find((j) => j.jobExecutionDetails.jobId === row.restoreJobId);
      const mismatch = restoreMismatch(job, 'files', row.snapshotId ?? '', input.restoreAccountId);
      if (mismatch) {
        check.foreignAdoptions += 1;
        check.problems.push(`${run.workflowId} reports restore job ${row.restoreJobId}: not its own: ${mismatch}`);
      }
      claim(row.restoreJobId, run, ctx, check);
    }
  }
  if (result.summary.verdict !== 'PASS') {
    check.completed = false;
    const reasons = report.resources.flatMap((r) => r.reasons).join('; ');
    check.problems.push(`${run.workflowId}: drill verdict ${result.summary.verdict}: ${reasons}`);
  }
}

/** Every resource of the drill is in its report exactly once, and no other is. */
function reportedOnce(run: RunRecord, ids: readonly string[], report: DrillReport, check: RunCheck): void {
  const rows = new Map<string, number>();
  for (const row of report.resources) rows.set(row.resourceId, (rows.get(row.resourceId) ?? 0) + 1);
  const wanted = new Set(ids);
  const missing = ids.filter((id) => !rows.has(id));
  const twice = [...rows].filter(([, n]) => n > 1).map(([id]) => id);
  const strangers = [...rows.keys()].filter((id) => !wanted.has(id));
  const some = (list: string[]) => `${list.length} (${list.slice(0, 5).join(', ')}${list.length > 5 ? ', …' : ''})`;
  if (missing.length > 0) check.problems.push(`${run.workflowId}: resources missing from its report: ${some(missing)}`);
  if (twice.length > 0) check.problems.push(`${run.workflowId}: resources reported more than once: ${some(twice)}`);
  if (strangers.length > 0)
    check.problems.push(`${run.workflowId}: resources reported that it did not drill: ${some(strangers)}`);
  check.notes.push(
    `${run.workflowId}: report of ${report.resources.length} rows: ${rows.size - twice.length - strangers.length}/` +
      `${ids.length} resources once, ${twice.length} twice or more, ${missing.length} missing, ${strangers.length} strangers`,
  );
}

async function checkExport(run: RunRecord, ctx: CheckContext, check: RunCheck): Promise<void> {
  let expected: string;
  let summary: { path: string; sha256: string; rows: number };
  if (run.plan.runbook === 'queryExport') {
    const result = run.result as QueryExportResult;
    summary = result.export;
    expected = await expectedQueryCsv(ctx.service, result.queryId);
  } else if (run.plan.runbook === 'costExport') {
    const result = run.result as CostExportResult;
    summary = result.export;
    expected = await expectedCostCsv(ctx.service, { ...run.plan.input.options, timeFrame: result.window.timeFrame });
  } else {
    return;
  }
  const written = await readFile(summary.path);
  const all = records(written.toString('utf8'));
  check.rows = all.length - 1;
  const column = COST_COLUMNS.indexOf('resourceId');
  const stable = (row: string) =>
    run.plan.runbook !== 'costExport' || !ctx.volatileResources.has(row.split(',')[column] ?? '');
  const got = all.filter(stable);
  const want = records(expected).filter(stable);
  const compared = got.length === all.length;
  const counts = new Map<string, number>();
  for (const row of want.slice(1)) counts.set(row, (counts.get(row) ?? 0) + 1);
  for (const row of got.slice(1)) counts.set(row, (counts.get(row) ?? 0) - 1);
  for (const n of counts.values()) {
    if (n > 0) check.lostRows += n;
    else check.duplicateRows -= n;
  }
  const sha = sha256(written);
  const differs = compared && sha !== sha256(Buffer.from(expected, 'utf8'));
  if (differs || sha !== summary.sha256 || check.rows !== summary.rows) {
    check.shaMismatches += 1;
    check.problems.push(
      `${run.workflowId}: ${summary.path} (${check.rows} rows, sha256 ${sha.slice(0, 12)}) differs from the ` +
        `service's ${want.length - 1} rows or from its own summary (${summary.rows} rows, ${summary.sha256.slice(0, 12)})`,
    );
  }
  if (check.lostRows + check.duplicateRows > 0) {
    check.problems.push(`${run.workflowId}: ${check.lostRows} rows lost, ${check.duplicateRows} written twice`);
  }
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** CSV records (RFC 4180, CRLF), keeping quoted line breaks inside their field. */
export function records(text: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\n' && !quoted) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}
