// Metrics end to end: real runbooks on a dev server, then the Runtime's Prometheus endpoint scraped over HTTP.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { RunbookMetric } from '../../contracts';
import { freePort } from '../../worker/dev-server';
import { resourceCategoryOf } from '../../api/dialect';
import { approvalGatedRestore, drDrill, queryExport, recoveryPlan, snapshotSlots } from '../../runbooks/workflows';
import { requestSlotSignal, snapshotSlotsWorkflowId } from '../../runbooks/snapshot-slots/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import type { PlanReport } from '../../runbooks/recovery-plan/contract';
import {
  APPROVAL,
  bucketDestination,
  drillVaultAndAccount,
  keepNudging,
  nudge,
  objectStoreTarget,
  e2eSuite,
  seededVmWithSnapshot,
  startWorker,
  throttledCustomersQuery,
  waitingRequestId,
} from './helpers';

let metricsAddress: string;
const fx = e2eSuite(async () => {
  // The Runtime is installed once per process: the fixture installs it with the exporter before anything else can.
  metricsAddress = `127.0.0.1:${await freePort()}`;
  return { metricsAddress };
});

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
  const account = Object.values(fx.sim.ctx.state.restoreAccounts).find((a) => a.name === 'restore-pa');
  if (!account) throw new Error('the seeded simulator has no queryable snapshot');
  // One 429 on a query call: the activity's retry is counted, and so is the 429.
  const query = await throttledCustomersQuery(fx, account.id, 'metrics');

  const exported = await fx.env.client.workflow.execute(queryExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `metrics-query-${randomUUID()}`,
    args: [query],
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
  const ids = [fx.sim.projectId, query.snapshotId, target.resourceId, requestId, exported.queryId];
  for (const endpoint of endpoints) for (const id of ids) expect(endpoint).not.toContain(id);
  expect(total(samples, RunbookMetric.serviceCalls, { status: '200' })).toBeGreaterThan(0);
  expect(total(samples, RunbookMetric.serviceCalls, { status: '429' })).toBe(1);
  expect(total(samples, RunbookMetric.serviceThrottled)).toBe(1);
  expect(total(samples, RunbookMetric.serviceRetries)).toBeGreaterThan(0);
}, 120_000);

/** The drill's series: every metric the report's activity sets. */
const DRILL_METRICS: string[] = [
  RunbookMetric.drillResources,
  RunbookMetric.drillVerdict,
  RunbookMetric.drillWorstRpo,
  RunbookMetric.drillRpoTarget,
  RunbookMetric.drillWorstRto,
  RunbookMetric.drillRtoTarget,
  RunbookMetric.drillCleanPointAge,
  RunbookMetric.drillCleanPointBehind,
  RunbookMetric.drillLastRun,
];
/** Ours, and the ones the SDK adds to every activity's metrics. */
const DRILL_LABELS = ['drill', 'verdict', 'resource_type', 'namespace', 'taskQueue', 'activityType'];
const VERDICTS = ['PASS', 'PARTIAL', 'FAIL'] as const;

/** The one sample of `name` with `labels`: a drill's gauges hold its last run's figure, one series each. */
function only(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  expect(found).toHaveLength(1);
  return found[0]?.value;
}

/** Everything in a report that identifies a resource or the run: none of it may appear in a label. */
function identifiers(report: DrillReport): string[] {
  const perResource = report.resources.flatMap((r) => [
    r.resourceId,
    r.resourceName,
    r.recoveryPoint?.snapshotId,
    r.snapshotId,
    r.backupJobId,
    r.restoreJobId,
  ]);
  return [...perResource, report.workflowId, report.runId].filter((id): id is string => Boolean(id));
}

interface DrillRun {
  report: DrillReport;
  /** The scraped samples of this drill's metrics. */
  samples: Sample[];
}

/** Resources of the drill's last run by type and verdict, as its gauges say: every verdict of every type, 0 included. */
function expectCounts({ samples }: DrillRun, counts: Record<string, Partial<Record<string, number>>>) {
  const types = Object.keys(counts);
  expect(samples.filter((s) => s.name === RunbookMetric.drillResources)).toHaveLength(types.length * VERDICTS.length);
  for (const resource_type of types) {
    for (const verdict of VERDICTS) {
      const count = only(samples, RunbookMetric.drillResources, { verdict, resource_type });
      expect({ resource_type, verdict, count }).toEqual({
        resource_type,
        verdict,
        count: counts[resource_type]?.[verdict] ?? 0,
      });
    }
  }
}

/** The run's verdict, worst RPO and RTO, targets and end, as its report has them. */
function expectFigures({ report, samples }: DrillRun) {
  for (const verdict of VERDICTS) {
    expect(only(samples, RunbookMetric.drillVerdict, { verdict })).toBe(verdict === report.summary.verdict ? 1 : 0);
  }
  expect(only(samples, RunbookMetric.drillWorstRpo)).toBe(report.summary.worstRpoSeconds ?? NaN);
  expect(only(samples, RunbookMetric.drillWorstRto)).toBe(report.summary.worstRtoSeconds ?? NaN);
  expect(only(samples, RunbookMetric.drillRpoTarget)).toBe(report.targets.rpoSeconds);
  expect(only(samples, RunbookMetric.drillRtoTarget)).toBe(report.targets.rtoSeconds);
  expect(only(samples, RunbookMetric.drillLastRun)).toBe(Date.parse(report.finishedAt) / 1000);
}

test("a drill's metrics count resources by verdict and type, with the worst RPO and RTO, and name no resource", async () => {
  const state = fx.sim.ctx.state;
  const vault = Object.values(state.vaults).find((v) => v.name === 'backups-pa-east-1');
  const account = Object.values(state.restoreAccounts).find((a) => a.name === 'restore-pa');
  const snapshotted = new Set(Object.values(state.snapshots).map((s) => s.resourceId));
  const backedUpOf = (category: string) =>
    Object.values(state.resources).find(
      (r) => resourceCategoryOf(r.resource.resourceType) === category && snapshotted.has(r.resource.id),
    )?.resource;
  const vm = backedUpOf('virtualMachine');
  const share = backedUpOf('fileSystem');
  if (!vault || !account || !vm || !share) throw new Error('the seeded simulator lacks a vault, account or resource');
  const name = `metrics-${randomUUID().slice(0, 8)}`;

  /** Runs the drill `name` over `ids` on the real worker, then scrapes its endpoint. */
  const drillAndScrape = async (ids: string[]): Promise<DrillRun> => {
    const drill = await fx.env.client.workflow.start(drDrill, {
      taskQueue: fx.worker.taskQueue,
      workflowId: `drill-metrics-${randomUUID().slice(0, 8)}`,
      args: [
        {
          name,
          resources: { ids },
          vaultId: vault.id,
          restoreAccountId: account.id,
          destination: { amazonBucket: { bucketName: 'dr-drill-restores', prefix: 'metrics/' } },
          targets: { rpoSeconds: 3 * 86400, rtoSeconds: 600 },
        },
      ],
    });
    const stop = keepNudging(drill);
    const result = await drill.result().finally(stop);
    const report = JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
    const samples = (await scrape()).filter((s) => s.name.startsWith('runbooks_drill_'));
    // Bounded labels only, on every drill series: no resource, snapshot, job or run in any of them.
    const ids_ = identifiers(report);
    expect(ids_).toEqual(expect.arrayContaining([vm.id, report.workflowId]));
    for (const sample of samples) {
      expect(DRILL_METRICS).toContain(sample.name);
      for (const [label, value] of Object.entries(sample.labels)) {
        expect(DRILL_LABELS).toContain(label);
        for (const id of ids_) expect(value).not.toContain(id);
      }
    }
    return { report, samples: samples.filter((s) => s.labels.drill === name) };
  };

  // First run: the file share's jobs fail, the VM passes.
  await fx.control.jobsConfig({ outcomes: { [share.id]: 'JOB_FAILED' } });
  const first = await drillAndScrape([vm.id, share.id]).finally(() => fx.control.jobsConfig({ outcomes: {} }));
  expect(first.report.summary).toMatchObject({ total: 2, passed: 1, failed: 1, verdict: 'FAIL' });
  const typeOf = (id: string) => first.report.resources.find((r) => r.resourceId === id)?.resourceType ?? '';
  const [vmType, shareType] = [typeOf(vm.id), typeOf(share.id)];
  expect(vmType).not.toBe(shareType);
  expectCounts(first, { [vmType]: { PASS: 1 }, [shareType]: { FAIL: 1 } });
  expectFigures(first);
  expect(first.report.summary.worstRtoSeconds).toBeGreaterThan(0);

  // A second run of the same drill, the VM alone: its figures replace the first's, and the share's counts go to 0.
  const second = await drillAndScrape([vm.id]);
  expect(second.report.summary).toMatchObject({ total: 1, passed: 1, verdict: 'PASS' });
  expectCounts(second, { [vmType]: { PASS: 1 }, [shareType]: {} });
  expectFigures(second);
  expect(Date.parse(second.report.finishedAt)).toBeGreaterThan(Date.parse(first.report.finishedAt));
}, 180_000);

/** A plan's series: every metric its report's activity sets. */
const PLAN_METRICS: string[] = [
  RunbookMetric.planVerdict,
  RunbookMetric.planRto,
  RunbookMetric.planRtoTarget,
  RunbookMetric.planRpo,
  RunbookMetric.planSkew,
  RunbookMetric.planFailedSteps,
  RunbookMetric.planLastRun,
];

test("a recovery plan's metrics give its verdict, RTO against its target, RPO, skew and failed steps, by plan only", async () => {
  // One restore step: the cheapest plan with a common point (one resource, no skew).
  const { account } = drillVaultAndAccount(fx);
  const vm = seededVmWithSnapshot(fx);
  const name = `metrics-${randomUUID().slice(0, 8)}`;
  const result = await fx.env.client.workflow.execute(recoveryPlan, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `plan-metrics-${randomUUID().slice(0, 8)}`,
    args: [
      {
        plan: {
          name,
          restoreAccountId: account.id,
          rtoTargetMinutes: 30,
          steps: [
            {
              id: 'server',
              kind: 'restore',
              resource: { id: vm.id },
              destination: bucketDestination('dr-drill-restores', 'metrics-plan/'),
            },
          ],
        },
      },
    ],
  });
  const report = JSON.parse(await readFile(result.report.json, 'utf8')) as PlanReport;
  expect(report.verdict).toBe('PASS');
  const samples = (await scrape()).filter((s) => s.name.startsWith('runbooks_plan_'));
  // Bounded labels only: the plan's name and the verdict, no step, resource, snapshot or run.
  const ids = [
    'server',
    vm.id,
    ...(report.commonPoint?.resources ?? []).map((r) => r.snapshotId),
    report.workflowId,
    report.runId,
  ];
  for (const sample of samples) {
    expect(PLAN_METRICS).toContain(sample.name);
    for (const [label, value] of Object.entries(sample.labels)) {
      expect(['plan', 'verdict', 'namespace', 'taskQueue', 'activityType']).toContain(label);
      for (const id of ids) expect(value).not.toContain(id);
    }
  }
  const mine = samples.filter((s) => s.labels.plan === name);
  expect(mine).toHaveLength(PLAN_METRICS.length + 1);
  expect(only(mine, RunbookMetric.planVerdict, { verdict: 'PASS' })).toBe(1);
  expect(only(mine, RunbookMetric.planVerdict, { verdict: 'FAIL' })).toBe(0);
  expect(only(mine, RunbookMetric.planRto)).toBe(report.rto.seconds);
  expect(only(mine, RunbookMetric.planRtoTarget)).toBe(30 * 60);
  expect(only(mine, RunbookMetric.planRpo)).toBe(report.rpoSeconds);
  expect(only(mine, RunbookMetric.planSkew)).toBe(0);
  expect(only(mine, RunbookMetric.planFailedSteps)).toBe(0);
  expect(only(mine, RunbookMetric.planLastRun)).toBe(Date.parse(report.finishedAt) / 1000);
}, 120_000);

test('the limiter of snapshot starts shows its limit, and no ceiling before any 429 (NaN), labelled by project', async () => {
  const project = fx.sim.projectId;
  // A worker with a client to query the limiter through, every second here (every minute by default).
  const worker = await startWorker(fx, { temporalClient: fx.env.client, scheduleGaugesIntervalMs: 1_000 });
  // The limiter as a drill's first snapshot starts it; the run asking is not there, so its slot comes back at once.
  await fx.env.client.workflow.signalWithStart(snapshotSlots, {
    workflowId: snapshotSlotsWorkflowId(project),
    taskQueue: fx.worker.taskQueue,
    args: [{ projectId: project }],
    signal: requestSlotSignal,
    signalArgs: [
      { leaseId: `lease-${randomUUID()}`, holder: { workflowId: `gone-${randomUUID()}`, runId: randomUUID() } },
    ],
  });
  const limiter = async () => {
    for (let i = 0; i < 50; i += 1) {
      const samples = (await scrape()).filter((s) => s.name.startsWith('runbooks_snapshot_slots_'));
      if (samples.some((s) => s.name === RunbookMetric.slotsLimit)) return samples;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('no runbooks_snapshot_slots_limit within 10 s');
  };
  const samples = await limiter().finally(() => worker.stop());
  const one = (name: string) => samples.find((s) => s.name === name);
  expect(one(RunbookMetric.slotsLimit)).toMatchObject({ labels: { project }, value: 10 });
  expect(one(RunbookMetric.slotsCeiling)?.value).toBeNaN();
  expect(one(RunbookMetric.slotsCeilingAge)?.value).toBeNaN();
  expect(one(RunbookMetric.slotsWaiting)?.value).toBe(0);
});
