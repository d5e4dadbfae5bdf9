// The evidence gate: does every resource in scope have a verified PASS within a period, and did every recovery plan
// named pass within it? Read from the drill and plan indexes, so that a report counts only when its seal and its chain
// verify against the keys given (history/drill-index.ts, history/plan-index.ts).
import type { DrillVerdict } from '../runbooks/dr-drill/report';
import type { StampStatus } from '../runtime/evidence-verify-stamps';
import type { DrillEntry, SealCheck, SealStatus } from './drill-index';
import { formatSeconds } from './line-chart';
import type { PlanEntry } from './plan-index';

/** Why a report's timestamps do not count, in words. */
const STAMP_TEXT: Readonly<Record<StampStatus, string>> = {
  timestamped: 'timestamped',
  unchecked: 'its tokens were not checked against the authority',
  partial: 'some of its tokens are missing (the authority could not be reached; a retry may still add them)',
  none: 'no timestamp token (no authority configured, or none reached yet)',
  invalid: 'a timestamp token does not hold',
};

/**
 * - `pass`: its newest drill within the period verifies and it passed;
 * - `none`: no readable report names it;
 * - `too-old`: no drill of it finished within the period;
 * - `failed`: its newest drill within the period verifies, and its result there is FAIL or PARTIAL;
 * - `unsigned`: its newest drill within the period has no seal, or a seal that does not verify (edited, another key);
 * - `chain-broken`: that drill's own seal holds, but its chain does not (a report before it removed, another edited);
 * - `key-retired`: that drill was sealed by a key outside its window in the key history (before `since`, or retired);
 * - `untimestamped` (with `requireTimestamp` only): that drill verifies and passed, but its seal and attestations do
 *   not all have a token that verifies against the authority's certificates given.
 */
export type GateStatus =
  'pass' | 'none' | 'too-old' | 'failed' | 'unsigned' | 'chain-broken' | 'key-retired' | 'untimestamped';

/** Each status in words, as the CLI, the pack and the console show it: a new status adds its words here. */
export const GATE_STATUS_TEXT: Readonly<Record<GateStatus, string>> = {
  pass: 'PASS',
  none: 'none',
  'too-old': 'too old',
  failed: 'failed',
  unsigned: 'unsigned',
  'chain-broken': 'chain broken',
  'key-retired': 'key retired',
  untimestamped: 'untimestamped',
};

/** One report of a resource, as the gate names it. */
export interface GateReport {
  /** The base name of the report's files in drill-reports/. */
  file: string;
  workflowId: string;
  runId: string;
  finishedAt: string;
  /** The resource's own result in it. */
  verdict: DrillVerdict;
  seal: SealStatus;
}

export interface GateResource {
  resourceId: string;
  /** From the newest report that names it. */
  resourceName?: string;
  status: GateStatus;
  /** Why it does not pass, in words; absent when it passes. */
  reason?: string;
  /** Its newest verified PASS, whenever it was. */
  lastVerifiedPass?: GateReport;
  /** The report its status comes from: its newest within the period, else its newest at all. */
  decidedBy?: GateReport;
}

export interface GateOptions {
  /** The resource IDs in scope; by default every resource the readable reports name. */
  scope?: readonly string[];
  /** Reports that finished at or after this time count. */
  sinceMs: number;
  /** A PASS counts only when its report's timestamps verify (`--require-timestamp`). */
  requireTimestamp?: boolean;
}

/** Each resource in scope with its status, sorted by ID; the gate passes when every one is `pass`. */
export function evidenceGate(drills: readonly DrillEntry[], options: GateOptions): GateResource[] {
  // Newest first, as the index lists them; sorted again so that the rule does not hang on the caller.
  const newestFirst = [...drills].sort((a, b) => b.finishedMs - a.finishedMs || a.file.localeCompare(b.file));
  const ids = options.scope ?? newestFirst.flatMap((d) => d.resources.map((r) => r.resourceId));
  return [...new Set(ids)].sort().map((id) => gateOf(id, newestFirst, options));
}

function gateOf(resourceId: string, newestFirst: readonly DrillEntry[], options: GateOptions): GateResource {
  const { sinceMs } = options;
  const reports = newestFirst.flatMap((drill) => {
    const result = drill.resources.find((r) => r.resourceId === resourceId);
    return result ? [{ drill, result }] : [];
  });
  const newest = reports[0];
  if (!newest) return { resourceId, status: 'none', reason: 'no drill report names it' };
  const reportOf = ({ drill, result }: (typeof reports)[number]): GateReport => ({
    file: drill.file,
    workflowId: drill.workflowId,
    runId: drill.runId,
    finishedAt: drill.finishedAt,
    verdict: result.verdict,
    seal: drill.seal.status,
  });
  const passed = reports.find((r) => r.drill.seal.status === 'verified' && r.result.verdict === 'PASS');
  const base = {
    resourceId,
    resourceName: newest.result.resourceName,
    ...(passed ? { lastVerifiedPass: reportOf(passed) } : {}),
  };

  // The newest drill within the period decides: an older PASS does not hide a newer failure, and a newer report
  // that does not verify is not read past, since it may be a failure that someone edited.
  const latest = reports.find((r) => r.drill.finishedMs >= sinceMs);
  if (!latest) {
    const last = passed ? `last verified PASS ${passed.drill.finishedAt}` : 'no verified PASS';
    const reason = passed?.drill === newest.drill ? last : `${last}; newest drill ${newest.drill.finishedAt}`;
    return { ...base, status: 'too-old', reason, decidedBy: reportOf(newest) };
  }
  const decidedBy = reportOf(latest);
  const sealFault = sealGate(latest.drill.file, latest.drill.seal);
  if (sealFault) return { ...base, ...sealFault, decidedBy };
  if (latest.result.verdict !== 'PASS') {
    return {
      ...base,
      status: 'failed',
      reason: `${latest.result.verdict} in ${latest.drill.file} at ${latest.drill.finishedAt}`,
      decidedBy,
    };
  }
  if (options.requireTimestamp && latest.drill.timestamps !== 'timestamped') {
    const reason = `${latest.drill.file}: ${STAMP_TEXT[latest.drill.timestamps ?? 'none']}`;
    return { ...base, status: 'untimestamped', reason, decidedBy };
  }
  return { ...base, status: 'pass', decidedBy };
}

/**
 * Why a report's seal does not let it count, as the gate names it, or undefined when it verifies: `chain-broken` when
 * its own seal holds and its chain does not, `key-retired` when it was sealed outside its key's window, `unsigned`
 * otherwise. The drill's and the plan's gates share it.
 */
function sealGate(
  file: string,
  seal: SealCheck,
): { status: 'chain-broken' | 'key-retired' | 'unsigned'; reason: string } | undefined {
  // A report whose only fault is a missing report before it still holds its own seal: its chain is what broke.
  const chainOnly =
    seal.status === 'chainFailed' ||
    (seal.status === 'failed' && seal.problems.length > 0 && seal.problems.every((p) => p.kind === 'removed'));
  if (chainOnly) {
    const problem = seal.problems[0];
    const why = problem ? `${problem.kind} ${problem.report}: ${problem.detail}` : 'a problem';
    return { status: 'chain-broken', reason: `${file}: its seal holds, its chain does not (${why})` };
  }
  const outsideWindow = seal.problems.find((p) => p.kind === 'keyWindow');
  if (outsideWindow) return { status: 'key-retired', reason: `${file}: ${outsideWindow.detail}` };
  if (seal.status !== 'verified') {
    const problem = seal.problems[0];
    const why = problem
      ? `${problem.kind === 'otherKey' ? 'unverified' : problem.kind}: ${problem.detail}`
      : seal.status;
    return { status: 'unsigned', reason: `${file}: ${why}` };
  }
  return undefined;
}

/**
 * A recovery plan's status, as the drill's resources have theirs, from its newest run within the period:
 * - `pass`: that run's seal and chain verify, its verdict is PASS and its RTO met its target;
 * - `none`: no readable report of the plan;
 * - `too-old`: no run of it finished within the period;
 * - `failed`: that run verifies and its verdict is FAIL (a step failed);
 * - `rto-missed`: that run verifies and passed every step, but its RTO missed its target;
 * - `unsigned`, `chain-broken`, `key-retired`, `untimestamped`: as for a drill.
 */
export type PlanGateStatus = GateStatus | 'rto-missed';

export const PLAN_GATE_STATUS_TEXT: Readonly<Record<PlanGateStatus, string>> = {
  ...GATE_STATUS_TEXT,
  'rto-missed': 'RTO missed',
};

/** One run of a plan, as the gate names it. */
export interface GatePlanRun {
  /** The base name of the report's files in plan-reports/. */
  file: string;
  workflowId: string;
  runId: string;
  mode: PlanEntry['mode'];
  finishedAt: string;
  verdict: PlanEntry['verdict'];
  rto: { seconds: number; targetSeconds: number; met: boolean };
  seal: SealStatus;
}

export interface GatePlan {
  /** The plan's name, as --plan gives it. */
  name: string;
  status: PlanGateStatus;
  /** Why it does not pass, naming the plan's run; absent when it passes. */
  reason?: string;
  /** Its newest verified run that passed and met its RTO target, whenever it was. */
  lastVerifiedPass?: GatePlanRun;
  /** The run its status comes from: its newest within the period, else its newest at all. */
  decidedBy?: GatePlanRun;
}

/** Each plan named, in the order given, with its status; the plans' part of the gate passes when every one is `pass`. */
export function planGate(plans: readonly PlanEntry[], names: readonly string[], options: GateOptions): GatePlan[] {
  const newestFirst = [...plans].sort((a, b) => b.finishedMs - a.finishedMs || a.file.localeCompare(b.file));
  return [...new Set(names)].map((name) =>
    planGateOf(
      name,
      newestFirst.filter((p) => p.name === name),
      options,
    ),
  );
}

const runOf = (p: PlanEntry): GatePlanRun => ({
  file: p.file,
  workflowId: p.workflowId,
  runId: p.runId,
  mode: p.mode,
  finishedAt: p.finishedAt,
  verdict: p.verdict,
  rto: { seconds: p.rto.seconds, targetSeconds: p.rto.targetSeconds, met: p.rto.met },
  seal: p.seal.status,
});

/** `RTO 65 min against its target of 60 min`. */
const rtoText = (p: PlanEntry) =>
  `RTO ${formatSeconds(p.rto.seconds)} against its target of ${formatSeconds(p.rto.targetSeconds)}`;

function planGateOf(name: string, runs: readonly PlanEntry[], options: GateOptions): GatePlan {
  const newest = runs[0];
  if (!newest) return { name, status: 'none', reason: `no recovery plan report of ${name}` };
  const passed = runs.find((r) => r.seal.status === 'verified' && r.verdict === 'PASS' && r.rto.met);
  const base = { name, ...(passed ? { lastVerifiedPass: runOf(passed) } : {}) };

  // As for a drill: the newest run within the period decides, and a newer one that does not verify is not read past.
  const latest = runs.find((r) => r.finishedMs >= options.sinceMs);
  if (!latest) {
    const last = passed ? `last verified PASS ${passed.finishedAt}` : 'no verified PASS';
    const reason = passed === newest ? last : `${last}; newest run ${newest.finishedAt}`;
    return { ...base, status: 'too-old', reason, decidedBy: runOf(newest) };
  }
  const decidedBy = runOf(latest);
  const sealFault = sealGate(latest.file, latest.seal);
  if (sealFault) return { ...base, ...sealFault, decidedBy };
  const at = `in ${latest.file} at ${latest.finishedAt}`;
  if (latest.verdict !== 'PASS') {
    const steps = latest.failedSteps.map((s) => s.id).join(', ') || 'none';
    const rto = latest.rto.met ? '' : `; ${rtoText(latest)}, missed`;
    return { ...base, status: 'failed', reason: `FAIL ${at} (failed steps: ${steps}${rto})`, decidedBy };
  }
  if (!latest.rto.met) {
    return { ...base, status: 'rto-missed', reason: `${rtoText(latest)} ${at}`, decidedBy };
  }
  if (options.requireTimestamp && latest.timestamps !== 'timestamped') {
    const reason = `${latest.file}: ${STAMP_TEXT[latest.timestamps ?? 'none']}`;
    return { ...base, status: 'untimestamped', reason, decidedBy };
  }
  return { ...base, status: 'pass', decidedBy };
}
