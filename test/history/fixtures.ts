// Output folders as the runs leave them: drill reports written and sealed by the drill's own activity code, posture
// and export files written with the runbooks' own CSV and HTML helpers.
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { STALE_COLUMNS, UNPROTECTED_COLUMNS } from '../../runbooks/posture-report/activities';
import { page, section, table, tableRow } from '../../runbooks/posture-report/html';
import { writeReport } from '../../runbooks/dr-drill/activities';
import type { DrillReport, DrillReportPaths, DrillResourceResult } from '../../runbooks/dr-drill/report';
import { csvRecord } from '../../runtime/csv';
import type { EvidenceKey } from '../../runtime/evidence-key';
import { latestPassed, v3Report } from '../helpers/drill-reports';

const env = new MockActivityEnvironment();

export interface DrillSpec {
  name?: string;
  runId: string;
  finishedAt: string;
  resources?: DrillResourceResult[];
  targets?: DrillReport['targets'];
}

/** A resource of a drill with its own figures. */
export function measured(resourceId: string, rtoSeconds: number, rpoSeconds: number, name = resourceId) {
  return { ...latestPassed, resourceId, resourceName: name, rtoSeconds, rpoSeconds } satisfies DrillResourceResult;
}

/** Writes and seals one drill report as the drill's activity does; returns its files' base name. */
export async function writeDrill(outputDir: string, key: EvidenceKey, spec: DrillSpec): Promise<string> {
  const name = spec.name ?? 'nightly';
  const base = v3Report(spec.resources ?? [latestPassed]);
  const report: DrillReport = {
    ...base,
    name,
    workflowId: `drill-${name}-${spec.finishedAt.slice(0, 10)}`,
    runId: spec.runId,
    startedAt: spec.finishedAt,
    finishedAt: spec.finishedAt,
    targets: spec.targets ?? base.targets,
  };
  const paths: DrillReportPaths = await env.run(writeReport, { outputDir, evidenceKey: key }, report, false);
  return basename(paths.json, '.json');
}

/** A posture report's three files, as the posture activity writes them (its columns, CSV and page helpers). */
export async function writePosture(
  outputDir: string,
  base: string,
  asOf: string,
  unprotected: { id: string; type: string; provider: string; env: string }[],
  stale: { id: string; type: string; provider: string; env: string }[],
): Promise<void> {
  const dir = join(outputDir, 'posture-reports');
  await mkdir(dir, { recursive: true });
  const row = (r: (typeof unprotected)[number], extra: string[]) => [
    r.id,
    `${r.id}-name`,
    r.type,
    r.provider,
    'eu-west-1',
    r.env,
    ...extra,
  ];
  await writeFile(
    join(dir, `${base}-unprotected.csv`),
    csvRecord(UNPROTECTED_COLUMNS) + unprotected.map((r) => csvRecord(row(r, ['acct-1', 'UNPROTECTED']))).join(''),
  );
  await writeFile(
    join(dir, `${base}-stale.csv`),
    csvRecord(STALE_COLUMNS) + stale.map((r) => csvRecord(row(r, ['PROTECTED', '', '', '']))).join(''),
  );
  const overview = table(
    ['', 'value'],
    [tableRow(['as of (service clock)', asOf]), tableRow(['resources', 100])].join(''),
    '',
  );
  await writeFile(join(dir, `${base}.html`), page('Backup posture', section('Summary', overview)));
}
