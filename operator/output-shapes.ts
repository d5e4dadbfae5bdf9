import type { WorkflowExecutionStatusName } from '@temporalio/client';
import type { RunbookStatus } from '../contracts';

/**
 * What `--output json` prints, command by command: a stable contract for scripts (docs/cli.md).
 * Field names are camelCase; times are ISO-8601 strings in UTC; a field with no value is absent, never null; every
 * document is an object, so that fields can be added without breaking a reader. Fields are added, never renamed or
 * removed.
 */

/** A run as Temporal's visibility knows it. */
export interface WorkflowRun {
  workflowId: string;
  runId: string;
  /** The runbook (the workflow type), such as `drDrill`. */
  runbook: string;
  /** Temporal's execution status: RUNNING, COMPLETED, FAILED, CANCELLED, TERMINATED, TIMED_OUT, … */
  state: WorkflowExecutionStatusName;
  startTime: string;
  /** Set once the run has closed. */
  closeTime?: string;
}

/** `runbooks status <workflowId> -o json`: the newest run under the ID. */
export interface StatusOutput extends WorkflowRun {
  /**
   * The runbook's answer to its `status` query (contracts/status.ts: phase, progress, ids, waitingFor, detail,
   * updatedAt…). Absent when no worker answered.
   */
  status?: RunbookStatus;
  /** The runbook's result, when it COMPLETED (absent for a runbook that returns nothing). */
  result?: unknown;
  /** Why it FAILED: the innermost failure's type (contracts/failures.ts, when it has one) and message. */
  failure?: { type?: string; message: string };
}

/** `runbooks list -o json`: the newest runs first, at most `--limit` of them. */
export interface ListOutput {
  workflows: WorkflowRun[];
}

/** One runbook waiting for approval. Fields the run could not tell are absent. */
export interface WaitingApproval {
  workflowId: string;
  runId: string;
  runbook: string;
  startedAt: string;
  requestId?: string;
  /** When the service created the request. */
  requestedAt?: string;
  ageSeconds?: number;
  approvals?: { current: number; required: number };
  approvalDeadline?: string;
  /** Set once approved; until then the execution window runs `executionWindowHours` from the approval. */
  executionDeadline?: string;
  executionWindowHours?: number;
  /** False when no worker answered the status query: only the visibility record is known. */
  answered: boolean;
}

/** `runbooks approvals -o json` (or `--json`): oldest request first, at most `--limit`. */
export interface ApprovalsOutput {
  approvals: WaitingApproval[];
}

/** One Temporal Schedule of the namespace. */
export interface ScheduleSummary {
  scheduleId: string;
  /** The workflow type it starts: a runbook for the schedules `runbooks schedule create` makes. */
  runbook?: string;
  /** The cron expression, for the schedules `runbooks schedule create` makes (from their memo). */
  cron?: string;
  /** The interval between runs (`24h`), for the schedules `runbooks schedule create --interval` makes. */
  interval?: string;
  paused: boolean;
  nextRunTime?: string;
  /** When it last started a run. */
  lastRunTime?: string;
}

/** `runbooks schedule list -o json`. */
export interface ScheduleListOutput {
  schedules: ScheduleSummary[];
}

/** One run a schedule started, with what became of it. */
export interface ScheduleRun {
  workflowId: string;
  runId: string;
  /** The time the schedule was due to start it (a backfilled or caught-up run starts later). */
  scheduledAt: string;
  /** When the schedule started it. */
  startedAt: string;
  /** Temporal's status of the run now: RUNNING, COMPLETED, FAILED…; absent when the run is gone (retention). */
  state?: WorkflowExecutionStatusName;
}

/** `runbooks schedule describe <scheduleId> -o json`. */
export interface ScheduleDescribeOutput {
  scheduleId: string;
  /** The workflow type it starts. */
  runbook?: string;
  spec: {
    /** As created with the CLI (from the memo); a schedule made otherwise has `calendars` or `intervals` only. */
    cron?: string;
    interval?: string;
    timezone?: string;
    /** Milliseconds each run may start after its time. */
    jitterMs: number;
  };
  policies: {
    /** As `--overlap` spells it: skip, buffer-one, buffer-all, cancel-other, terminate-other, allow-all. */
    overlap: string;
    catchupWindowMs: number;
    pauseOnFailure: boolean;
  };
  paused: boolean;
  note?: string;
  /** The next times it is due. */
  nextRuns: string[];
  /** The last runs it started (Temporal keeps the last 10), oldest first. */
  recentRuns: ScheduleRun[];
  /** Runs it started that are still running. */
  running: string[];
  actions: {
    /** Runs started since it was created. */
    taken: number;
    /** Times it was due, or triggered, while a run was still running, and did not start under its overlap policy. */
    skippedOverlap: number;
    /** Times it was due while Temporal could not start them, and that were later than the catch-up window. */
    missedCatchupWindow: number;
  };
  createdAt: string;
  updatedAt?: string;
}

/** One day of `runbooks schedule backfill`: a run and, for a cost export, whether it wrote its file. */
export interface BackfillRun extends ScheduleRun {
  /** A cost export's window label: the day (`2026-11-20`) or month it exported. */
  window?: string;
  /** A cost export's file. */
  file?: string;
  /** written: the file is new; already-present: it was there and was left as it was; failed: the run did not complete. */
  outcome: 'written' | 'already-present' | 'completed' | 'failed';
}

/** `runbooks schedule backfill <scheduleId> --from <date> --to <date> -o json`. */
export interface ScheduleBackfillOutput {
  scheduleId: string;
  runbook?: string;
  from: string;
  /** Exclusive. */
  to: string;
  /** The times in the range the schedule was due: one run each. */
  scheduledTimes: string[];
  /** Absent with --no-wait. */
  runs?: BackfillRun[];
}

/** One version (build) of the Worker Deployment. */
export interface DeploymentVersionOutput {
  buildId: string;
  /** Where new runs go: `current` takes what `ramping` does not. */
  routing: 'current' | 'ramping' | 'inactive';
  /** Whether pinned runs still need it; Temporal refreshes it every few minutes. */
  drainage?: 'DRAINING' | 'DRAINED';
  createdAt?: string;
  drainageCheckedAt?: string;
  /** Workers that polled its workflow tasks in the last 5 minutes. */
  pollers: number;
  /** Open runs pinned to it: they run only on workers of this build. */
  pinnedRuns: number;
}

/** `runbooks deployment status -o json`. */
export interface DeploymentStatusOutput {
  deploymentName: string;
  /** The build new runs go to; absent: unversioned workers take them. */
  current?: string;
  ramping?: { buildId: string; percent: number };
  versions: DeploymentVersionOutput[];
  /** The STRANDED and STALLED lines the text prints, each with its recovery; empty when nothing waits on a gone worker. */
  stalls: string[];
}

/** A drill report as `evidence gate` names it. */
export interface GateReportOutput {
  /** `<workflowId>--<runId>.json`, in the drill-reports/ folder. */
  reportFile: string;
  workflowId: string;
  runId: string;
  finishedAt: string;
  /** The resource's own result in the report: PASS, PARTIAL or FAIL. */
  verdict: 'PASS' | 'PARTIAL' | 'FAIL';
  /** The check of its seal: verified, chainFailed (its seal holds, its chain does not), failed or unsealed. */
  seal: 'verified' | 'chainFailed' | 'failed' | 'unsealed';
}

/** One resource in the gate's scope. */
export interface GateResourceOutput {
  resourceId: string;
  /** From the newest report that names it; absent when none does. */
  resourceName?: string;
  /**
   * `pass`, or why not: `none` (no report names it), `too-old` (no drill of it within the period), `failed` (its
   * newest drill within the period verifies and did not pass), `unsigned` (that drill's seal is missing or does not
   * verify), `chain-broken` (that drill's seal holds, its chain does not), `key-retired` (sealed by a key outside its
   * window in the key history).
   */
  status: 'pass' | 'none' | 'too-old' | 'failed' | 'unsigned' | 'chain-broken' | 'key-retired' | 'untimestamped';
  /** Why it does not pass, in words; absent when it passes. */
  reason?: string;
  /** Its newest verified PASS, whenever it was; absent when it never had one. */
  lastVerifiedPass?: GateReportOutput;
  /** The report its status comes from: its newest within the period, else its newest at all. */
  decidedBy?: GateReportOutput;
}

/** A recovery plan run as `evidence gate --plan` names it. */
export interface GatePlanRunOutput {
  /** `plan-<name>--<runId>.json`, in the plan-reports/ folder. */
  reportFile: string;
  workflowId: string;
  runId: string;
  mode: 'drill' | 'recover';
  finishedAt: string;
  /** The plan's verdict: PASS when every step passed. */
  verdict: 'PASS' | 'FAIL';
  /** The plan's RTO against its target, in seconds. */
  rto: { seconds: number; targetSeconds: number; met: boolean };
  seal: 'verified' | 'chainFailed' | 'failed' | 'unsealed';
}

/** A recovery plan named by `evidence gate --plan`. */
export interface GatePlanOutput {
  name: string;
  /**
   * `pass` (its newest run within the period verifies, passed and met its RTO target), or why not: `none`, `too-old`,
   * `failed` (a step failed), `rto-missed` (every step passed, the RTO missed its target), `unsigned`,
   * `chain-broken`, `key-retired`, `untimestamped`, as for a resource.
   */
  status:
    | 'pass'
    | 'none'
    | 'too-old'
    | 'failed'
    | 'rto-missed'
    | 'unsigned'
    | 'chain-broken'
    | 'key-retired'
    | 'untimestamped';
  /** Why it does not pass, naming the run; absent when it passes. */
  reason?: string;
  /** Its newest verified run that passed and met its RTO target, whenever it was. */
  lastVerifiedPass?: GatePlanRunOutput;
  /** The run its status comes from: its newest within the period, else its newest at all. */
  decidedBy?: GatePlanRunOutput;
}

/** `runbooks evidence gate --within <duration> -o json`. */
export interface EvidenceGateOutput {
  /** `pass` when every resource in scope and every plan named passes (exit 0), else `fail` (exit 1). */
  result: 'pass' | 'fail';
  /** The period as given (`30d`). */
  within: string;
  /** Reports that finished at or after this time count. */
  since: string;
  checkedAt: string;
  /**
   * `reports`: every resource the readable reports name; `file`: the resources of --scope; `selection`: those the
   * selection of --scope takes in the service's inventory; `plans`: --plan alone, no resource is checked (`resources`
   * is empty).
   */
  scope: 'reports' | 'file' | 'selection' | 'plans';
  scopeFile?: string;
  /** With a selection: the service whose inventory it was resolved against, and how many resources it took. */
  selection?: { serviceUrl: string; resolved: number };
  /** The drill-reports/ folder read. */
  dir: string;
  /** `given`: --public-key; `folder`: the keys beside the reports (--trust-folder-keys). */
  keySource: 'given' | 'folder';
  keyIds: string[];
  /** Sorted by ID. */
  resources: GateResourceOutput[];
  /** Files that look like reports and were not read (another schema version, not JSON): they count for no resource. */
  skipped: { file: string; reason: string }[];
  /**
   * With --control: each control named, judged by the same rule over its own period (or --within). Then `within` and
   * `resources` above are those of the shortest period named: a resource that passes it passes every longer one.
   */
  controls?: GateControlOutput[];
  /** With --plan: each plan named, in the order given, with its status over the same period. */
  plans?: GatePlanOutput[];
  /** With --plan: the plan-reports/ folder read. */
  planDir?: string;
}

/** A control of the catalogue (docs/evidence-packs.md) as `evidence gate --control` judges it. */
export interface GateControlOutput {
  controlId: string;
  framework: string;
  title: string;
  /** The clause of the standard: `Annex A 8.13`, `CP-4`. */
  clause: string;
  /** The period as a duration: the control's own (`90d`), or --within as given. */
  within: string;
  /** `stated` by the standard, `chosen` where it states none, `given` with --within. */
  periodBasis: 'stated' | 'chosen' | 'given';
  since: string;
  /** The control also asks for a review of the results, which no drill report shows. */
  reviewerRequired: boolean;
  /** `satisfied` when every resource in scope has a verified PASS within the period. */
  result: 'satisfied' | 'not-satisfied';
  /** Why, in words. */
  reason: string;
  /** The resources in scope without a verified PASS within the period, each with its status and why. */
  gaps: GateResourceOutput[];
  /** The reports that decide a PASS within the period, each with the resources it decides; newest first. */
  satisfiedBy: (GateReportBase & { resourceIds: string[] })[];
}

/** A report's file and run. */
export interface GateReportBase {
  reportFile: string;
  workflowId: string;
  runId: string;
  finishedAt: string;
}

/** A resource's drill in one report, as `coverage` names it. */
export interface CoverageReportOutput {
  /** `<workflowId>--<runId>.json`, in the drill-reports/ folder. */
  reportFile: string;
  drill: string;
  workflowId: string;
  runId: string;
  finishedAt: string;
  /** The resource's own result in the report. */
  verdict: 'PASS' | 'PARTIAL' | 'FAIL';
  seal: 'verified' | 'chainFailed' | 'failed' | 'unsealed';
  /** Its recovery point's age when the drill started. */
  rpoSeconds?: number;
  rtoSeconds?: number;
  rpoTargetSeconds: number;
  rtoTargetSeconds: number;
}

/** One resource in the scope of `coverage`. */
export interface CoverageResourceOutput {
  resourceId: string;
  /** As the newest report naming it says. */
  resourceName?: string;
  resourceType?: string;
  /**
   * `covered` (a verified PASS within the period), `overdue` (its last verified PASS is older), `never-passed`
   * (drilled, never with a verified PASS: due now), `never-drilled` (no report in scope names it: due now).
   */
  state: 'covered' | 'overdue' | 'never-passed' | 'never-drilled';
  overdue: boolean;
  neverDrilled: boolean;
  /** Its newest result, in any readable report, is not a PASS in a report that verifies. */
  lastFailed: boolean;
  /** Its last verified PASS plus the period; the time of the check when it has none. */
  nextDue: string;
  /** Its newest PASS in a report whose seal and chain verify. */
  lastPass?: CoverageReportOutput;
  /** Seconds from its last verified PASS to the check. */
  lastPassAgeSeconds?: number;
  /** The age, at the check, of the recovery point its last verified PASS restored (that drill's start less its RPO). */
  verifiedPointAgeSeconds?: number;
  /** Its newest result in any readable report. */
  lastResult?: CoverageReportOutput;
}

/** What `coverage` and `evidence score` say first: when, over which period, from which reports, with which keys. */
export interface EvidenceReadOutput {
  checkedAt: string;
  /** The period as given (`90d`), and in days. */
  within: string;
  withinDays: number;
  /** A verified PASS finished at or after this time covers. */
  since: string;
  /** The drill-reports/ folder read, or the pack. */
  dir: string;
  /** `given`: --public-key; `folder`: the keys beside the reports; `pack`: the keys inside the pack. */
  keySource: 'given' | 'folder' | 'pack';
  keyIds: string[];
}

/** `runbooks coverage -o json`. */
export interface CoverageOutput extends EvidenceReadOutput {
  /** With --drill. */
  drill?: string;
  counts: {
    inScope: number;
    covered: number;
    overdue: number;
    neverDrilled: number;
    neverPassed: number;
    failedLast: number;
  };
  /** Overdue first (longest overdue first), then due now, then by next due date. */
  resources: CoverageResourceOutput[];
  /** Files that look like reports and were not read: they count for no resource. */
  skipped: { file: string; reason: string }[];
}

/** One readiness score with every input it is computed from (docs/operations/readiness.md). Ratios are 0 to 1. */
export interface ReadinessScoreOutput {
  /** `estate`, or a drill's name. */
  scope: string;
  /** 0 to 100, one decimal. */
  score: number;
  inputs: {
    inScope: number;
    covered: number;
    coverage: number;
    latestPassed: number;
    passShare: number;
    /** Absent when the 95th percentile falls on a resource with no verified PASS within the period. */
    rtoP95Ratio?: number;
    withoutRto: number;
    rtoMargin: number;
    freshness: number;
  };
}

/** `runbooks evidence score -o json`. */
export interface EvidenceScoreOutput extends EvidenceReadOutput {
  /** Points out of 100 of each part. */
  weights: { coverage: number; passShare: number; rtoMargin: number; freshness: number };
  estate: ReadinessScoreOutput;
  /** One per drill name, by name. */
  drills: ReadinessScoreOutput[];
  skipped: { file: string; reason: string }[];
}
