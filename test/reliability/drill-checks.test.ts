// The reliability harness's checks of a drill (bench/reliability/checks.ts) on jobs and a report made to break them:
// each check must be able to fail, as the estate trial counts on (kill-worker-in-estate-drill).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackupJobDocument as BackupJob, BackupServiceClient, RestoreJobDocument as RestoreJob } from '../../api';
import { checkRun, type CheckContext } from '../../bench/reliability/checks';
import type { RunRecord } from '../../bench/reliability/runs';
import type { DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport, DrillResourceResult } from '../../runbooks/dr-drill/report';

const SINCE = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:05:00.000Z';
const ACCOUNT = 'restore-account';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'drill-checks-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function backup(jobId: string, resourceId: string, snapshotId: string): BackupJob {
  return {
    jobExecutionDetails: { jobId, status: 'JOB_COMPLETED', createdTime: LATER },
    backupType: 'ON_DEMAND',
    resourceDetails: { id: resourceId },
    snapshotDetails: { id: snapshotId, pointInTime: LATER },
  } as BackupJob;
}

function restore(jobId: string, resourceId: string, snapshotId: string): RestoreJob {
  return {
    jobExecutionDetails: { jobId, status: 'JOB_COMPLETED', createdTime: LATER },
    restoreType: 'FILES',
    destinationDetails: { restoreAccountId: ACCOUNT },
    resourceDetails: { id: resourceId },
    snapshotDetails: { id: snapshotId, pointInTime: LATER },
  } as RestoreJob;
}

function row(resourceId: string, backupJobId: string, restoreJobId: string, snapshotId: string): DrillResourceResult {
  const named = { resourceId, resourceName: resourceId, resourceType: 'PA_VM' };
  return { ...named, snapshotReused: false, verdict: 'PASS', reasons: [], backupJobId, restoreJobId, snapshotId };
}

/** A completed PASS drill of `ids` whose report holds `rows`, checked against the service's `jobs`. */
async function check(ids: string[], rows: DrillResourceResult[], jobs: CheckContext['jobs'], name: string) {
  const json = join(dir, `${name}.json`);
  const summary = { total: rows.length, passed: rows.length, partial: 0, failed: 0, verdict: 'PASS' as const };
  const targets = { rpoSeconds: 60, rtoSeconds: 60 };
  const times = { startedAt: SINCE, finishedAt: LATER };
  const report: DrillReport = { name, workflowId: name, runId: 'r', ...times, targets, resources: rows, summary };
  await writeFile(json, JSON.stringify(report));
  const result: DrDrillResult = { report: { json, markdown: `${json}.md` }, summary };
  const run: RunRecord = {
    plan: {
      kind: 'drill',
      runbook: 'drDrill',
      input: {
        name,
        resources: { ids },
        vaultId: 'vault',
        restoreAccountId: ACCOUNT,
        destination: {},
        targets,
      },
    },
    workflowId: name,
    startedAt: 0,
    status: 'COMPLETED',
    result,
    heartbeats: [],
    activities: {},
  };
  return checkRun(run, {
    jobs,
    requests: [],
    since: SINCE,
    claimed: new Map(),
    volatileResources: new Set(),
    // Drill checks ask neither the service nor the workers' credentials.
    service: {} as BackupServiceClient,
    serviceUrl: '',
    credentialsFile: '',
    seen: [],
    disruptedRuns: new Set(),
  });
}

test('a drill with one job of each kind per resource, each reported once, passes every check', async () => {
  const jobs = {
    backupJobs: [backup('b1', 'r1', 's1'), backup('b2', 'r2', 's2')],
    restoreJobs: [restore('x1', 'r1', 's1'), restore('x2', 'r2', 's2')],
  };
  const c = await check(['r1', 'r2'], [row('r1', 'b1', 'x1', 's1'), row('r2', 'b2', 'x2', 's2')], jobs, 'clean');
  expect(c).toMatchObject({ completed: true, jobs: 4, duplicateJobs: 0, foreignAdoptions: 0, problems: [] });
  expect(c.notes.join()).toContain('2/2 resources once, 0 twice or more, 0 missing, 0 strangers');
});

test('two backups or two restores of one resource are duplicates, a restore of another snapshot too', async () => {
  const jobs = {
    backupJobs: [backup('b1', 'r1', 's1'), backup('b1b', 'r1', 's1b'), backup('b2', 'r2', 's2')],
    // r2's second restore is of an older snapshot, not of the drill's: it counts all the same.
    restoreJobs: [restore('x1', 'r1', 's1'), restore('x2', 'r2', 's2'), restore('x2b', 'r2', 'old')],
  };
  const c = await check(['r1', 'r2'], [row('r1', 'b1', 'x1', 's1'), row('r2', 'b2', 'x2', 's2')], jobs, 'dups');
  expect(c.duplicateJobs).toBe(2);
  expect(c.problems).toEqual(['dups: 2 backup jobs for resource r1', 'dups: 2 restore jobs for r2']);
});

test('a report that names a resource twice, leaves one out or names a stranger fails, as does a foreign job', async () => {
  const jobs = {
    backupJobs: [backup('b1', 'r1', 's1'), backup('b2', 'r2', 's2'), backup('b9', 'r9', 's9')],
    restoreJobs: [restore('x1', 'r1', 's1'), restore('x2', 'r2', 's2'), restore('x9', 'r9', 's9')],
  };
  const rows = [row('r1', 'b1', 'x1', 's1'), row('r1', 'b1', 'x1', 's1'), row('r9', 'b9', 'x9', 's9')];
  const c = await check(['r1', 'r2'], rows, jobs, 'report');
  expect(c.problems).toEqual(
    expect.arrayContaining([
      'report: resources missing from its report: 1 (r2)',
      'report: resources reported more than once: 1 (r1)',
      'report: resources reported that it did not drill: 1 (r9)',
      'report reports backup job b9 for r9: not its own',
    ]),
  );
  expect(c.foreignAdoptions).toBe(1);
});
