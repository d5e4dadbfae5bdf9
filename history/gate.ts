// The evidence gate: does every resource in scope have a verified PASS within a period? Read from the drill index, so
// that a report counts only when its seal and its chain verify against the keys given (history/drill-index.ts).
import type { DrillVerdict } from '../runbooks/dr-drill/report';
import type { StampStatus } from '../runtime/evidence-verify-stamps';
import type { DrillEntry, SealStatus } from './drill-index';

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
  const { seal } = latest.drill;
  // A report whose only fault is a missing report before it still holds its own seal: its chain is what broke.
  const chainOnly =
    seal.status === 'chainFailed' ||
    (seal.status === 'failed' && seal.problems.length > 0 && seal.problems.every((p) => p.kind === 'removed'));
  if (chainOnly) {
    const problem = seal.problems[0];
    const why = problem ? `${problem.kind} ${problem.report}: ${problem.detail}` : 'a problem';
    const reason = `${latest.drill.file}: its seal holds, its chain does not (${why})`;
    return { ...base, status: 'chain-broken', reason, decidedBy };
  }
  const outsideWindow = seal.problems.find((p) => p.kind === 'keyWindow');
  if (outsideWindow) {
    const reason = `${latest.drill.file}: ${outsideWindow.detail}`;
    return { ...base, status: 'key-retired', reason, decidedBy };
  }
  if (seal.status !== 'verified') {
    const problem = seal.problems[0];
    const why = problem
      ? `${problem.kind === 'otherKey' ? 'unverified' : problem.kind}: ${problem.detail}`
      : seal.status;
    return { ...base, status: 'unsigned', reason: `${latest.drill.file}: ${why}`, decidedBy };
  }
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
