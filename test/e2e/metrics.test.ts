// Metrics end to end: real runbooks on a dev server, then the Runtime's Prometheus endpoint scraped over HTTP.
import { randomUUID } from 'node:crypto';
import { RunbookMetric } from '../../contracts';
import { freePort } from '../../worker/dev-server';
import { resourceCategoryOf } from '../../api/dialect';
import { approvalGatedRestore, drDrill, queryExport } from '../../runbooks/workflows';
import {
  APPROVAL,
  keepNudging,
  nudge,
  objectStoreTarget,
  setupE2E,
  teardownE2E,
  waitingRequestId,
  type E2E,
} from './helpers';

let fx: E2E;
let metricsAddress: string;

beforeAll(async () => {
  // The Runtime is installed once per process: the fixture installs it with the exporter before anything else can.
  metricsAddress = `127.0.0.1:${await freePort()}`;
  fx = await setupE2E({ metricsAddress });
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format, samples only. */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m?.[1] || m[3] === undefined) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) if (l[1]) labels[l[1]] = l[2] ?? '';
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

async function scrape(): Promise<Sample[]> {
  const res = await fetch(`http://${metricsAddress}/metrics`);
  expect(res.status).toBe(200);
  return parse(await res.text());
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

test('/metrics shows the SDK metrics and the runbook metrics of real runs', async () => {
  const { databases } = await fx.control.state();
  const database = databases.find((d) => d.tables.includes('customers') && d.snapshotIds.length > 0);
  const snapshotId = database?.snapshotIds.at(-1);
  const account = Object.values(fx.sim.ctx.state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!database || !snapshotId || !account) throw new Error('the seeded simulator has no queryable snapshot');
  // One 429 on a query call: the activity's retry is counted, and so is the 429.
  await fx.control.faults({
    rate: 1,
    kinds: ['429'],
    retryAfterSeconds: 1,
    method: 'GET',
    pathPrefix: `/v1/projects/${fx.sim.projectId}/queries/`,
    times: 1,
  });

  const exported = await fx.env.client.workflow.execute(queryExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `metrics-query-${randomUUID()}`,
    args: [
      {
        snapshotId,
        query: {
          databaseName: database.databaseName,
          query: 'SELECT id, name FROM customers ORDER BY id',
          restoreAccountId: account.id,
          destination: { bucketA: { bucketName: 'query-results', prefix: 'metrics' } },
        },
      },
    ],
  });
  expect(exported.export.rows).toBeGreaterThan(0);

  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const target = objectStoreTarget(fx);
  const restore = await fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `metrics-restore-${randomUUID()}`,
    args: [
      {
        ...target,
        kind: 'bucket',
        destination: { bucketA: { bucketName: 'restored-objects', prefix: 'metrics/' } },
        comment: 'metrics test',
      },
    ],
  });
  const requestId = await waitingRequestId(restore);
  await fx.control.approve(requestId, APPROVAL);
  await nudge(restore);
  await restore.result();
  await fx.control.clearPolicies();

  const samples = await scrape();
  const names = new Set(samples.map((s) => s.name));

  // The SDK's own, with its default prefix.
  expect(total(samples, 'temporal_workflow_completed')).toBeGreaterThanOrEqual(2);
  expect([...names].some((n) => n.startsWith('temporal_activity_execution_latency'))).toBe(true);

  // Runs by runbook and outcome: exactly the runs made.
  for (const runbook of ['queryExport', 'approvalGatedRestore']) {
    expect(total(samples, RunbookMetric.runsStarted, { runbook })).toBe(1);
    expect(total(samples, RunbookMetric.runsFinished, { runbook, outcome: 'completed' })).toBe(1);
    expect(total(samples, RunbookMetric.runsFinished, { runbook, outcome: 'failed' })).toBe(0);
  }

  // The export's rows and bytes, as its result reports them.
  expect(total(samples, RunbookMetric.exportedRows, { runbook: 'queryExport' })).toBe(exported.export.rows);
  expect(total(samples, RunbookMetric.exportedBytes, { runbook: 'queryExport' })).toBe(exported.export.bytes);

  // One approval wait, ended APPROVED.
  const approvalCount = `${RunbookMetric.approvalWait}_count`;
  expect(total(samples, approvalCount, { runbook: 'approvalGatedRestore', outcome: 'APPROVED' })).toBe(1);

  // Service calls by endpoint template and status: no IDs in any label.
  const calls = samples.filter((s) => s.name === RunbookMetric.serviceCalls);
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    expect(call.labels.endpoint).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \/v1\//);
    expect(call.labels.status).toMatch(/^(\d{3}|timeout|error)$/);
  }
  const endpoints = calls.map((c) => c.labels.endpoint ?? '');
  expect(endpoints).toContain('POST /v1/projects/{id}/snapshots/{id}/databases/query');
  expect(endpoints).toContain('POST /v1/projects/{id}/resources/{id}/snapshots/{id}/restore-bucket');
  const ids = [fx.sim.projectId, snapshotId, target.resourceId, requestId, exported.queryId];
  for (const endpoint of endpoints) for (const id of ids) expect(endpoint).not.toContain(id);
  expect(total(samples, RunbookMetric.serviceCalls, { status: '200' })).toBeGreaterThan(0);
  expect(total(samples, RunbookMetric.serviceCalls, { status: '429' })).toBe(1);
  expect(total(samples, RunbookMetric.serviceThrottled)).toBe(1);
  expect(total(samples, RunbookMetric.serviceRetries)).toBeGreaterThan(0);
}, 120_000);

test('a drill sets its gauges per resource, and says when its SQL check could not run', async () => {
  const state = fx.sim.ctx.state;
  const vault = Object.values(state.vaults).find((v) => v.name === 'backups-pa-east-1');
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  const snapshotted = new Set(Object.values(state.snapshots).map((s) => s.resourceId));
  const vm = Object.values(state.resources).find(
    (r) => resourceCategoryOf(r.resource.resourceType) === 'virtualMachine' && snapshotted.has(r.resource.id),
  )?.resource;
  if (!vault || !account || !vm) throw new Error('the seeded simulator has no vault, restore account or backed-up VM');
  const drill = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-metrics-${randomUUID().slice(0, 8)}`,
    args: [
      {
        name: `metrics-${randomUUID().slice(0, 8)}`,
        resources: { ids: [vm.id] },
        vaultId: vault.id,
        restoreAccountId: account.id,
        destination: { amazonBucket: { bucketName: 'dr-drill-restores', prefix: 'metrics/' } },
        targets: { rpoSeconds: 3 * 86400, rtoSeconds: 600 },
        sqlCheck: {
          databaseName: 'app',
          query: 'SELECT 1',
          expectation: 'rows >= 1',
          destination: { amazonBucket: { bucketName: `query-results-${vault.region}` } },
        },
      },
    ],
  });
  const stop = keepNudging(drill);
  const result = await drill.result().finally(stop);
  expect(result.summary).toMatchObject({ total: 1, passed: 1 });

  const samples = await scrape();
  const resource = { resource: vm.id };
  // Not a relational database: the check could not run, and the gauge says so (a check that ran would set 0).
  expect(total(samples, RunbookMetric.drillCheckNotRun, resource)).toBe(1);
  expect(samples.some((s) => s.name === RunbookMetric.drillRto && s.labels.resource === vm.id)).toBe(true);
  expect(total(samples, RunbookMetric.drillRtoTarget, resource)).toBe(600);
}, 120_000);
