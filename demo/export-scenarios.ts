import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Client } from '@temporalio/client';
import type { CostExportInput, CostExportResult } from '../runbooks/cost-export/contract';
import { drillValidationUpdate } from '../contracts';
import type { DrDrillInput, DrDrillResult } from '../runbooks/dr-drill/contract';
import { dayOf, statusQuery } from '../contracts';
import type { DrillReport } from '../runbooks/dr-drill/report';
import { countsText } from '../runbooks/dr-drill/report-text';
import type { PostureReportInput } from '../runbooks/posture-report/contract';
import type { PostureReportResult } from '../runbooks/posture-report/report';
import type { QueryExportInput, QueryExportResult } from '../runbooks/query-export/contract';
import { unpassedDrill } from '../operator/drill-runs';
import { keyHistoryPath } from '../runtime/evidence-key-history';
import { Seal, SEAL_SUFFIX } from '../runtime/evidence-seal';
import { resourceLine, short } from './drill-lines';
import type { DemoTargets } from './discover';
import { runToEnd, type Deadline } from './follow';
import { exportedFile, fileFacts, type StepReport } from './report';

/**
 * A DR drill over resources of different types in one region, with a SQL check on the database. `keyFile` is the
 * demo's own signing key, in its data directory, for the command that verifies the report.
 */
export async function drillScenario(
  client: Client,
  taskQueue: string,
  targets: DemoTargets,
  deadline: Deadline,
  keyFile: string,
): Promise<StepReport> {
  const { vault, resources, database } = targets.drill;
  const input: DrDrillInput = {
    name: 'demo',
    resources: { ids: resources.map((r) => r.id) },
    vaultId: vault.id,
    restoreAccountId: targets.restoreAccount.id,
    destination: { amazonBucket: { bucketName: `drill-restores-${vault.region}`, prefix: 'drill/' } },
    // The seeded snapshots are one to two days old: RPO is measured against the newest before the drill.
    targets: { rpoSeconds: 3 * 86_400, rtoSeconds: 900 },
    retentionDays: 7,
    sqlCheck: {
      databaseName: database.databaseName,
      query: `SELECT * FROM ${database.table}`,
      expectation: 'rows >= 1',
      destination: { amazonBucket: { bucketName: `query-results-${vault.region}` } },
    },
    // The other types are validated from outside; the demo answers for the team (see answerValidations).
    validation: { windowHours: 1 },
    parallelism: 3,
  };
  for (const r of resources) console.log(`  ${r.resourceType.padEnd(18)} ${r.resourceName}`);
  console.log(
    `  vault ${vault.name} (${vault.region}); check: ${input.sqlCheck?.query} on ${database.databaseName}, expect rows >= 1`,
  );
  const answering = new AbortController();
  const names = new Map(resources.map((r) => [r.id, r.resourceName]));
  const answered = answerValidations(client, `drill-demo-${dayOf(new Date())}`, names, answering.signal);
  const { result, ...run } = await runToEnd<DrDrillResult>(client, taskQueue, 'drDrill', input, deadline).finally(() =>
    answering.abort(),
  );
  await answered;

  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
  const sealPath = result.report.json.replace(/\.json$/, SEAL_SUFFIX);
  const seal = Seal.parse(JSON.parse(await readFile(sealPath, 'utf8')));
  const s = result.summary;
  const paths = [result.report.json, result.report.markdown, ...(result.report.html ? [result.report.html] : [])];
  return {
    title: 'DR drill',
    ...run,
    outcome: `${s.verdict}: ${countsText(s)}`,
    lines: [
      ...report.resources.map(resourceLine),
      `worst RPO ${short(s.worstRpoSeconds)}, worst RTO ${short(s.worstRtoSeconds)} (targets ${short(report.targets.rpoSeconds)} / ${short(report.targets.rtoSeconds)})`,
      `sealed as report ${seal.sequence} of the '${seal.chain}' chain (Ed25519 key ${seal.keyId}); ` +
        `check with: runbooks evidence verify ${dirname(sealPath)} --public-key ${keyHistoryPath(keyFile)}`,
      `(the demo's own key, not the project's: runbooks evidence key show --key-file ${keyFile})`,
      ...(result.timestamps
        ? [
            result.timestamps.status === 'added'
              ? `timestamped by RUNBOOKS_TSA_URL: ${result.timestamps.files} RFC 3161 tokens (.tsr) beside the seal and the attestations`
              : `timestamps pending (${result.timestamps.reason ?? 'the authority did not answer'}): a run of their own adds them`,
          ]
        : []),
    ],
    files: [
      ...(await Promise.all(
        paths.map(async (path) => ({ path, rows: report.resources.length, bytes: (await fileFacts(path)).bytes })),
      )),
      { path: sealPath, bytes: (await fileFacts(sealPath)).bytes },
    ],
    failure: unpassedDrill(run.workflowId, result)?.message,
  };
}

/** A query over a database snapshot, exported page by page to CSV. */
export async function queryScenario(
  client: Client,
  taskQueue: string,
  targets: DemoTargets,
  deadline: Deadline,
): Promise<StepReport> {
  const q = targets.query;
  const input: QueryExportInput = {
    snapshotId: q.snapshotId,
    query: {
      databaseName: q.databaseName,
      query: `SELECT * FROM ${q.table}`,
      restoreAccountId: targets.restoreAccount.id,
      destination: { amazonBucket: { bucketName: `query-results-${q.region}`, prefix: 'demo/' } },
    },
    pageSize: 100,
  };
  console.log(`  ${input.query.query} on ${q.databaseName}, snapshot ${q.snapshotId}`);
  const { result, ...run } = await runToEnd<QueryExportResult>(client, taskQueue, 'queryExport', input, deadline);
  const e = result.export;
  return {
    title: 'Query export',
    ...run,
    outcome: `${e.rows} rows in ${e.pages} pages`,
    lines: [
      `query ${result.queryId} ran ${result.runningTimeMs === undefined ? 'n/a' : `${result.runningTimeMs} ms`} in the service`,
      `the service also wrote: ${result.outputLocations.join(', ') || 'nothing'}`,
    ],
    files: [exportedFile(e)],
  };
}

/** Yesterday's cost data, per resource and day, to a CSV named for the window. */
export async function costScenario(client: Client, taskQueue: string, deadline: Deadline): Promise<StepReport> {
  const input: CostExportInput = { window: 'previous-day', options: { granularity: 'DAILY', groupBy: 'RESOURCE' } };
  console.log('  window previous-day, DAILY, grouped by RESOURCE');
  const { result, ...run } = await runToEnd<CostExportResult>(client, taskQueue, 'costExport', input, deadline);
  const e = result.export;
  return {
    title: 'Cost export',
    ...run,
    outcome: `${e.rows} rows for ${result.window.label}`,
    lines: [`window ${result.window.timeFrame.startTime} to ${result.window.timeFrame.endTime}, ${e.pages} pages`],
    files: [exportedFile(e)],
  };
}

/** What is not protected, and what has no snapshot in the last two days, over the whole inventory. */
export async function postureScenario(client: Client, taskQueue: string, deadline: Deadline): Promise<StepReport> {
  const input: PostureReportInput = { maxSnapshotAgeHours: 48 };
  console.log('  whole inventory; stale: no snapshot in the last 48 h');
  const { result, ...run } = await runToEnd<PostureReportResult>(client, taskQueue, 'postureReport', input, deadline);
  const byStatus = Object.entries(result.counts.backupStatus).map(([status, n]) => `${status} ${n}`);
  return {
    title: 'Posture report',
    ...run,
    outcome: `${result.unprotected} unprotected, ${result.stale} stale of ${result.resources}`,
    lines: [`by backup status: ${byStatus.join(', ')}`, `as of ${result.asOf}`],
    files: [result.files.unprotectedCsv, result.files.staleCsv, result.files.html],
  };
}

/**
 * Plays the team's validator: each resource the drill waits on gets `pass`, through the same update as
 * `runbooks drill validate`. It checks nothing itself and says so in the verdict's message; a team's own check
 * (an application probe, a file count) goes here.
 */
async function answerValidations(
  client: Client,
  workflowId: string,
  names: ReadonlyMap<string, string>,
  stop: AbortSignal,
): Promise<void> {
  const answered = new Set<string>();
  while (!stop.aborted) {
    const handle = client.workflow.getHandle(workflowId);
    const waiting = await handle.query(statusQuery).then(
      (s) => s.awaitingVerdict ?? [],
      () => [],
    );
    for (const resourceId of waiting.filter((id) => !answered.has(id))) {
      const message = 'the demo answered pass without a check of its own';
      await handle.executeUpdate(drillValidationUpdate, { args: [{ resourceId, result: 'pass', message }] });
      answered.add(resourceId);
      console.log(`    validated ${names.get(resourceId) ?? resourceId}: pass (${message})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
