import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Client } from '@temporalio/client';
import type { BackupServiceClient, InventoryResource } from '../api';
import { RunFailedError } from '../operator/errors';
import { startRunbook } from '../operator/start-run';
import {
  planConfirmUpdate,
  planStepsQuery,
  type PlanReport,
  type PlanStepResult,
  type RecoveryPlanResult,
  type RecoveryPlanRunInput,
} from '../runbooks/recovery-plan/contract';
import {
  countsText,
  criticalPathText,
  humanDuration,
  isoUtc,
  rpoText,
  rtoLine,
  rtoPhaseParts,
  secondsBetween,
  skewText,
} from '../runbooks/recovery-plan/render-markdown';
import { keyHistoryPath } from '../runtime/evidence-key-history';
import { Seal, SEAL_SUFFIX } from '../runtime/evidence-seal';
import { summarize } from '../steps/jobs';
import type { DemoTargets } from './discover';
import { follow, sleep, type Deadline } from './follow';
import { fileFacts, type StepReport } from './report';

/** Who confirms the plan's manual step: the demo plays this person. */
const DNS_APPROVER = 'oncall-lead';

/**
 * A recovery plan of three tiers in drill mode: the database, its SQL validation, then the bucket, then two servers at
 * once, then a manual DNS step the demo confirms itself. The four resources are backed up together first, so that one
 * common point lies within the default skew bound (the seeded snapshots are hours apart).
 */
export async function planScenario(
  client: Client,
  taskQueue: string,
  service: BackupServiceClient,
  targets: DemoTargets,
  deadline: Deadline,
  keyFile: string,
): Promise<StepReport> {
  const { vault, database: sql } = targets.drill;
  const { database, bucket, servers } = targets.plan;
  const tiers: [string, InventoryResource][] = [
    ['database', database],
    ['bucket', bucket],
    ['server-1', servers[0]],
    ['server-2', servers[1]],
  ];
  for (const [step, r] of tiers) console.log(`  ${step.padEnd(9)} ${r.resourceType.padEnd(18)} ${r.resourceName}`);

  console.log(`  backing up the four at once into ${vault.name}, for a common point within 60 min:`);
  await backUpTogether(
    service,
    tiers.map(([, r]) => r),
    vault.id,
    deadline,
  );

  const destination = (tier: string) => ({
    amazonBucket: { bucketName: `plan-restores-${vault.region}`, prefix: `shop/${tier}/` },
  });
  const input: RecoveryPlanRunInput = {
    mode: 'drill',
    plan: {
      name: 'demo-shop',
      description: 'The demo shop: its database, the bucket its jobs read, two web servers, and DNS.',
      restoreAccountId: targets.restoreAccount.id,
      rtoTargetMinutes: 15,
      steps: [
        { id: 'database', kind: 'restore', resource: { id: database.id }, destination: destination('database') },
        {
          id: 'database-check',
          kind: 'validate',
          of: 'database',
          sql: {
            databaseName: sql.databaseName,
            query: `SELECT * FROM ${sql.table}`,
            expectation: 'rows >= 1',
            destination: { amazonBucket: { bucketName: `query-results-${vault.region}` } },
          },
        },
        {
          id: 'bucket',
          kind: 'restore',
          after: ['database-check'],
          resource: { id: bucket.id },
          destination: destination('bucket'),
        },
        ...servers.map((server, i) => ({
          id: `server-${i + 1}`,
          kind: 'restore' as const,
          after: ['bucket'],
          resource: { id: server.id },
          destination: destination(`server-${i + 1}`),
        })),
        {
          id: 'dns',
          kind: 'manual',
          after: ['server-1', 'server-2'],
          instructions: 'Point shop.example.com at the restored web servers',
          approvers: [DNS_APPROVER],
        },
        // The application is back once its data answers behind the new DNS: the RTO runs to this last validation.
        {
          id: 'shop-check',
          kind: 'validate',
          of: 'database',
          after: ['dns'],
          sql: {
            databaseName: sql.databaseName,
            query: `SELECT * FROM ${sql.table}`,
            expectation: 'rows >= 1',
            destination: { amazonBucket: { bucketName: `query-results-${vault.region}` } },
          },
        },
      ],
    },
  };
  console.log(
    `  plan ${input.plan.name}: database → database-check (${sql.databaseName}, expect rows >= 1) → bucket → ` +
      `server-1 + server-2 → dns (manual) → shop-check; drill mode, RTO target ${input.plan.rtoTargetMinutes} min`,
  );

  const startedAt = Date.now();
  const { workflowId } = await startRunbook(client, taskQueue, 'recoveryPlan', input);
  console.log(`  started ${workflowId}`);
  const confirming = new AbortController();
  const confirmed = confirmManualStep(client, workflowId, 'dns', confirming.signal);
  const { result, tookMs } = await follow<RecoveryPlanResult>(client, workflowId, deadline, startedAt).finally(() =>
    confirming.abort(),
  );
  await confirmed;

  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as PlanReport;
  const sealPath = result.report.json.replace(/\.json$/, SEAL_SUFFIX);
  const seal = Seal.parse(JSON.parse(await readFile(sealPath, 'utf8')));
  const { commonPoint } = report;
  const parts = rtoPhaseParts(report).map((p) => `${p.label} ${humanDuration(p.seconds)}`);
  const paths = [result.report.json, result.report.markdown, result.report.html];
  return {
    title: 'Recovery plan',
    workflowId,
    tookMs,
    outcome: `${report.verdict}: ${countsText(report)}`,
    lines: [
      report.steps.map(stepText).join(', '),
      `RTO ${rtoLine(report)}`,
      `critical path ${criticalPathText(report)}: ${parts.join(', ') || 'no time'}`,
      commonPoint
        ? `common point ${isoUtc(commonPoint.at)} (${commonPoint.target}): skew ${skewText(commonPoint)}; RPO ${rpoText(report)}`
        : 'no common point: the plan restored nothing',
      `sealed as report ${seal.sequence} of the '${seal.chain}' chain; ` +
        `check with: runbooks evidence verify ${dirname(sealPath)} --public-key ${keyHistoryPath(keyFile)}`,
    ],
    files: [
      ...(await Promise.all(paths.map(async (path) => ({ path, bytes: (await fileFacts(path)).bytes })))),
      { path: sealPath, bytes: (await fileFacts(sealPath)).bytes },
    ],
    // As a drill that did not pass: the demo exits 4 after its summary.
    ...(report.verdict === 'PASS'
      ? {}
      : { failure: `recovery plan ${workflowId} ended ${report.verdict}: ${report.failedSteps.join(', ')} failed` }),
  };
}

/** "server-1 passed in 5 s", "dns passed in 2 s (confirmed by oncall-lead)", "bucket skipped". */
function stepText(step: PlanStepResult): string {
  const took = secondsBetween(step.startedAt, step.endedAt);
  const confirmed = step.confirmedBy ? ` (confirmed by ${step.confirmedBy})` : '';
  return `${step.id} ${step.status}${took === undefined ? '' : ` in ${humanDuration(took)}`}${confirmed}`;
}

/** Starts a backup of each resource at once, and waits for every one to end with a snapshot. */
async function backUpTogether(
  service: BackupServiceClient,
  resources: InventoryResource[],
  vaultId: string,
  deadline: Deadline,
): Promise<void> {
  const jobs = await Promise.all(
    resources.map(async (r) => ({ r, jobId: await service.takeSnapshot(r.id, { vaultId, retentionDays: 7 }) })),
  );
  for (const { r, jobId } of jobs) {
    for (;;) {
      deadline.remaining(`backing up ${r.resourceName}`);
      const job = summarize(await service.getBackupJob(jobId));
      if (job.outcome === 'COMPLETED' && job.snapshotId) {
        console.log(`    ${r.resourceName}: snapshot ${job.snapshotId} at ${isoUtc(job.pointInTime)}`);
        break;
      }
      if (job.outcome !== 'UNKNOWN') {
        throw new RunFailedError(`the backup of ${r.resourceName} (job ${jobId}) ended ${job.status}`);
      }
      await sleep(500);
    }
  }
}

/**
 * Plays the person the manual step waits for: once the step runs, confirms it through the same update as
 * `runbooks plan confirm`. The demo switches nothing itself and says so in the note.
 */
async function confirmManualStep(client: Client, workflowId: string, stepId: string, stop: AbortSignal) {
  const handle = client.workflow.getHandle(workflowId);
  while (!stop.aborted) {
    const steps = await handle.query(planStepsQuery).catch(() => []);
    if (steps.find((s) => s.id === stepId)?.status === 'running') {
      const note = 'the demo confirmed it without switching anything';
      await handle.executeUpdate(planConfirmUpdate, { args: [{ stepId, by: DNS_APPROVER, note }] });
      console.log(`    confirmed step ${stepId} as ${DNS_APPROVER} (${note})`);
      return;
    }
    await sleep(250);
  }
}
