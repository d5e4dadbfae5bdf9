import { coverageByResource, type CoverageResult, type ResourceCoverage } from '../history/coverage';
import { formatSeconds } from '../history/line-chart';
import { parseCommandLine, positionals } from '../operator/args';
import { NotFoundError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { outputFormat, printJson, printTable } from '../operator/output';
import type { CoverageOutput, CoverageReportOutput, CoverageResourceOutput } from '../operator/output-shapes';
import {
  dirArgOf,
  evidenceReadOutput,
  readDrillEvidence,
  skippedOutput,
  withinOf,
  type DrillEvidence,
} from './drill-evidence';

const HELP = helpFor('coverage');

/** `--drill` names a drill no readable report is of. */
export class DrillNotFoundError extends NotFoundError {}

/**
 * `coverage [--dir <output dir>] [--within <duration>] [--drill <name>] [--public-key <file>...] [-o text|json]`:
 * every resource in scope with its last verified PASS and next due date, overdue first. Reads, never writes.
 */
export async function coverageCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, positionals: given } = parseCommandLine(argv, HELP);
  positionals(given, [], HELP);
  const format = outputFormat(values.output, HELP);
  const within = withinOf(values.within, HELP);
  const drill = values.drill?.trim();
  const evidence = await readDrillEvidence(dirArgOf(values.dir, env), values['public-key'] ?? [], HELP);
  if (drill !== undefined) drillNamed(evidence, drill);
  const now = new Date();
  const report = coverageByResource(evidence.drills, {
    now,
    withinDays: within.days,
    ...(drill === undefined ? {} : { drill }),
  });
  const resources = report.resources.map((r) => resourceOutput(r, now.getTime()));

  if (format === 'json') {
    printJson({
      ...evidenceReadOutput(evidence, within, report),
      ...(drill === undefined ? {} : { drill }),
      counts: report.counts,
      resources,
      skipped: skippedOutput(evidence),
    } satisfies CoverageOutput);
    return;
  }
  const scope = drill === undefined ? 'every resource the reports name' : `the resources of drill ${drill}`;
  console.log(`coverage within ${within.text} (since ${report.since}) in ${evidence.dir}, for ${scope}:`);
  console.log(keyNote(evidence));
  if (resources.length > 0) printTable([HEADER, ...resources.map(row)]);
  const c = report.counts;
  console.log(
    `${c.inScope} in scope: ${c.covered} covered within ${within.text}, ${c.overdue} overdue, ` +
      `${c.neverDrilled} never drilled, ${c.neverPassed} never passed; ${c.failedLast} failed last`,
  );
  for (const s of evidence.skipped) console.log(`  not read: ${s.file}: ${s.reason}`);
}

/** What the seals were checked against, in words. */
export function keyNote(evidence: DrillEvidence): string {
  const ids = evidence.keyIds.length > 0 ? evidence.keyIds.join(', ') : 'none';
  if (evidence.keySource === 'given') return `seals checked against the keys given: ${ids}`;
  const where = evidence.keySource === 'pack' ? 'inside the pack' : 'beside the reports';
  return `seals checked against the keys ${where} (${ids}): give --public-key <the key history> for an audit`;
}

/** A `--drill` that no readable report is of is a mistake, not an empty scope. */
function drillNamed(evidence: DrillEvidence, drill: string): void {
  if (evidence.drills.some((d) => d.name === drill)) return;
  const names = [...new Set(evidence.drills.map((d) => d.name))].sort();
  throw new DrillNotFoundError(
    `no report of drill '${drill}' in ${evidence.dir}` + (names.length > 0 ? `; drills: ${names.join(', ')}` : ''),
  );
}

export function reportOutput(r: CoverageResult): CoverageReportOutput {
  return {
    reportFile: `${r.file}.json`,
    drill: r.drill,
    workflowId: r.workflowId,
    runId: r.runId,
    finishedAt: r.finishedAt,
    verdict: r.verdict,
    seal: r.seal,
    ...(r.rpoSeconds === undefined ? {} : { rpoSeconds: r.rpoSeconds }),
    ...(r.rtoSeconds === undefined ? {} : { rtoSeconds: r.rtoSeconds }),
    rpoTargetSeconds: r.rpoTargetSeconds,
    rtoTargetSeconds: r.rtoTargetSeconds,
  };
}

function resourceOutput(r: ResourceCoverage, nowMs: number): CoverageResourceOutput {
  return {
    resourceId: r.resourceId,
    ...(r.resourceName === undefined ? {} : { resourceName: r.resourceName }),
    ...(r.resourceType === undefined ? {} : { resourceType: r.resourceType }),
    state: r.state,
    overdue: r.overdue,
    neverDrilled: r.neverDrilled,
    lastFailed: r.lastFailed,
    nextDue: r.nextDue,
    ...(r.lastPass
      ? {
          lastPass: reportOutput(r.lastPass),
          lastPassAgeSeconds: Math.max(0, (nowMs - Date.parse(r.lastPass.finishedAt)) / 1000),
        }
      : {}),
    ...(r.verifiedPointAgeSeconds === undefined ? {} : { verifiedPointAgeSeconds: r.verifiedPointAgeSeconds }),
    ...(r.lastResult ? { lastResult: reportOutput(r.lastResult) } : {}),
  };
}

const HEADER = ['RESOURCE', 'TYPE', 'LAST PASS', 'AGE', 'RPO', 'RTO', 'NEXT DUE', 'STATE'];
const seconds = (s: number | undefined) => (s === undefined ? '-' : formatSeconds(s));

function row(r: CoverageResourceOutput): string[] {
  const state = r.lastFailed && r.state !== 'never-passed' ? `${r.state}, failed last` : r.state;
  return [
    r.resourceName && r.resourceName !== r.resourceId ? `${r.resourceId} (${r.resourceName})` : r.resourceId,
    r.resourceType ?? '-',
    r.lastPass?.finishedAt ?? 'never',
    seconds(r.lastPassAgeSeconds),
    seconds(r.lastPass?.rpoSeconds),
    seconds(r.lastPass?.rtoSeconds),
    r.state === 'covered' || r.state === 'overdue' ? r.nextDue : 'now',
    state,
  ];
}
