// One control of the catalogue (history/controls.ts) judged on the drill reports by the gate's rule (history/gate.ts):
// satisfied when every resource in scope has a verified PASS within the control's period. `evidence oscal`,
// `evidence gate --control`, `evidence pack --by-control` and the console's Drills page by control all read it here.
import type { Control } from './controls';
import type { DrillEntry } from './drill-index';
import { evidenceGate, type GateResource } from './gate';

export const DAY_MS = 86_400_000;

/** One period for every control instead of each control's own (`--within`), as given. */
export interface GivenPeriod {
  ms: number;
  text: string;
}

export interface ControlPeriod {
  ms: number;
  /** Whole days, rounded. */
  days: number;
  /** `stated` or `chosen` from the catalogue, or `given` for --within. */
  basis: 'stated' | 'chosen' | 'given';
  /** Reports that finished at or after this time count. */
  sinceMs: number;
  /** In words: `90 days (chosen: the standard states none)`, `30d (--within)`. */
  text: string;
}

/** A report that decides a resource's PASS for a control: verified, PASS for it, the newest of it within the period. */
export interface SatisfyingDrill {
  /** The base name of the report's files in drill-reports/. */
  file: string;
  workflowId: string;
  runId: string;
  finishedAt: string;
  /** The resources it decides, sorted. */
  resourceIds: string[];
}

export interface ControlEvaluation {
  control: Control;
  period: ControlPeriod;
  /** At least one resource in scope, and every one passes. */
  satisfied: boolean;
  /** Every resource in scope, as the gate judges it over the period (sorted by ID). */
  resources: GateResource[];
  /** The resources that do not pass, with the gate's status and reason. */
  gaps: GateResource[];
  /** Newest first. */
  satisfyingDrills: SatisfyingDrill[];
}

export interface EvaluationOptions {
  /** The time the periods count back from. */
  nowMs: number;
  within?: GivenPeriod;
  /** The resource IDs in scope; by default every resource the reports name (the gate's default). */
  scope?: readonly string[];
  /** A PASS counts only with verified timestamps (the gate's `--require-timestamp`). */
  requireTimestamp?: boolean;
}

export function controlPeriod(control: Control, nowMs: number, within?: GivenPeriod): ControlPeriod {
  const { days, basis } = control.evidence.within;
  if (within) {
    return {
      ms: within.ms,
      days: Math.round(within.ms / DAY_MS),
      basis: 'given',
      sinceMs: nowMs - within.ms,
      text: `${within.text} (--within)`,
    };
  }
  const text = `${days} days (${basis === 'stated' ? 'as the standard states' : 'chosen: the standard states none'})`;
  return { ms: days * DAY_MS, days, basis, sinceMs: nowMs - days * DAY_MS, text };
}

/** The control judged by the gate's rule over its period (or the one given). */
export function evaluateControl(
  control: Control,
  drills: readonly DrillEntry[],
  options: EvaluationOptions,
): ControlEvaluation {
  const period = controlPeriod(control, options.nowMs, options.within);
  const resources = evidenceGate(drills, {
    sinceMs: period.sinceMs,
    ...(options.scope ? { scope: options.scope } : {}),
    ...(options.requireTimestamp ? { requireTimestamp: true } : {}),
  });
  const gaps = resources.filter((r) => r.status !== 'pass');
  return {
    control,
    period,
    satisfied: resources.length > 0 && gaps.length === 0,
    resources,
    gaps,
    satisfyingDrills: satisfyingDrills(resources),
  };
}

export function evaluateControls(
  controls: readonly Control[],
  drills: readonly DrillEntry[],
  options: EvaluationOptions,
): ControlEvaluation[] {
  return controls.map((c) => evaluateControl(c, drills, options));
}

/** The reports that decided a PASS, each with the resources it decided. */
function satisfyingDrills(resources: readonly GateResource[]): SatisfyingDrill[] {
  const byFile = new Map<string, SatisfyingDrill>();
  for (const r of resources) {
    if (r.status !== 'pass' || !r.decidedBy) continue;
    const d = r.decidedBy;
    const entry = byFile.get(d.file) ?? {
      file: d.file,
      workflowId: d.workflowId,
      runId: d.runId,
      finishedAt: d.finishedAt,
      resourceIds: [],
    };
    entry.resourceIds.push(r.resourceId);
    byFile.set(d.file, entry);
  }
  return [...byFile.values()]
    .map((d) => ({ ...d, resourceIds: [...d.resourceIds].sort() }))
    .sort((a, b) => b.finishedAt.localeCompare(a.finishedAt) || a.file.localeCompare(b.file));
}

/** The gaps in one line: `db-1 (too-old: last verified PASS …); vm-1 (none: …)`. */
export function gapsText(gaps: readonly GateResource[]): string {
  return gaps.map((r) => `${r.resourceId} (${r.status}${r.reason ? `: ${r.reason}` : ''})`).join('; ');
}

/** Why a control is satisfied or not, in one sentence; `scope` says which resources count (`in scope`). */
export function evaluationText(e: ControlEvaluation, scope = 'in scope'): string {
  if (e.satisfied) {
    return `Each of the ${e.resources.length} resource(s) ${scope} has a verified PASS within ${e.period.text}.`;
  }
  if (e.resources.length === 0) return 'No drill report names a resource.';
  return `Without a verified PASS within ${e.period.text}: ${gapsText(e.gaps)}.`;
}

/** Control IDs as file names: letters, digits, `.`, `_`, `-`, not starting with a dot, never `index`. */
export function controlFileName(control: Control): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(control.id) || control.id === 'index') {
    throw new Error(`control ID ${JSON.stringify(control.id)} cannot name a file`);
  }
  return control.id;
}
