// Drill entries made by hand, as DrillReader lists them, for the pure computations over the history.
import type { DrillEntry, SealStatus } from '../../history/drill-index';
import type { DrillResourceEntry } from '../../history/drill-files';
import type { DrillVerdict } from '../../runbooks/dr-drill/report';

export interface ResultSpec {
  id: string;
  verdict?: DrillVerdict;
  rtoSeconds?: number;
  rpoSeconds?: number;
  type?: string;
}

export interface EntrySpec {
  name?: string;
  runId: string;
  finishedAt: string;
  resources: ResultSpec[];
  seal?: SealStatus;
  targets?: { rpoSeconds: number; rtoSeconds: number };
}

/** A resource's result: a PASS in 600 s from a point a day old unless said. */
export const result = (spec: ResultSpec): DrillResourceEntry => ({
  resourceId: spec.id,
  resourceName: `${spec.id}-name`,
  resourceType: spec.type ?? 'AWS_RDS',
  verdict: spec.verdict ?? 'PASS',
  rtoSeconds: spec.rtoSeconds ?? 600,
  rpoSeconds: spec.rpoSeconds ?? 86_400,
});

/** One report, started as it finished, verified and of drill `nightly` with targets RPO 2 d, RTO 1 h unless said. */
export function entry(spec: EntrySpec): DrillEntry {
  const name = spec.name ?? 'nightly';
  const resources = spec.resources.map(result);
  const failed = resources.filter((r) => r.verdict === 'FAIL').length;
  const partial = resources.filter((r) => r.verdict === 'PARTIAL').length;
  const workflowId = `drill-${name}-${spec.finishedAt.slice(0, 10)}`;
  return {
    file: `${workflowId}--${spec.runId}`,
    name,
    workflowId,
    runId: spec.runId,
    startedAt: spec.finishedAt,
    finishedAt: spec.finishedAt,
    finishedMs: Date.parse(spec.finishedAt),
    verdict: failed > 0 ? 'FAIL' : partial > 0 ? 'PARTIAL' : 'PASS',
    total: resources.length,
    passed: resources.length - failed - partial,
    partial,
    failed,
    targets: spec.targets ?? { rpoSeconds: 172_800, rtoSeconds: 3_600 },
    resources,
    seal: { status: spec.seal ?? 'verified', problems: [] },
  };
}

/** `days` days before `now`, as an ISO time. */
export const daysBefore = (now: Date, days: number): string =>
  new Date(now.getTime() - days * 86_400_000).toISOString();
