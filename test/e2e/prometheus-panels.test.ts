// A real Prometheus (built into .tools/ from its Go module) scrapes the real worker while real runs happen on the dev
// server against the simulator: a drill, a recovery plan, an approval-gated restore, a query export with a 429, a cost
// export, a refused cost export, and a schedule. Then every panel query of the provisioned Grafana dashboard must
// return at least one series, and the shipped alert rules must evaluate without error.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../worker/dev-server';
import { resourceCategoryOf } from '../../api/dialect';
import { approvalGatedRestore, costExport, drDrill, queryExport, recoveryPlan } from '../../runbooks/workflows';
import { alertRules, panelQueries, prometheusTools, RULES_FILE } from '../helpers/prometheus';
import {
  APPROVAL,
  drillVaultAndAccount,
  eventually,
  keepNudging,
  nudge,
  objectStoreTarget,
  setupE2E,
  teardownE2E,
  throttledCustomersQuery,
  waitingRequestId,
  type E2E,
} from './helpers';

let fx: E2E;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let dataDir: string;
const prometheusOutput: string[] = [];

/** The window the test gives Grafana's `$__rate_interval`: sixty 1 s scrapes. */
const RATE_INTERVAL = '1m';

beforeAll(async () => {
  // Built into .tools/ on a first run (minutes); .ci/run builds it before the timed steps.
  const tools = prometheusTools();
  const metricsAddress = `127.0.0.1:${await freePort()}`;
  // The schedule gauges are read every second, not every minute: the schedule made below shows at once.
  fx = await setupE2E({ metricsAddress, worker: { scheduleGaugesIntervalMs: 1_000 } });

  dataDir = await mkdtemp(join(tmpdir(), 'runbooks-prometheus-'));
  const config = {
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    rule_files: [RULES_FILE],
    // The job name the shipped configuration uses, which the worker rules select.
    scrape_configs: [{ job_name: 'runbooks-workers', static_configs: [{ targets: [metricsAddress] }] }],
  };
  const configFile = join(dataDir, 'prometheus.yml');
  await writeFile(configFile, stringify(config));
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    tools.prometheus,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dataDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [prometheus.stdout, prometheus.stderr]) {
    stream?.on('data', (chunk: Buffer) => prometheusOutput.push(chunk.toString()));
  }
  await eventually(`Prometheus ready at ${prometheusUrl}`, async () => {
    if (prometheus?.exitCode !== null) throw new Error(`Prometheus exited: ${prometheusOutput.join('')}`);
    return (await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.ok === true;
  });
}, 20 * 60_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((done) => prometheus?.once('exit', done));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await teardownE2E(fx);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

interface QueryAnswer {
  status: string;
  error?: string;
  data?: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

async function instantQuery(expr: string): Promise<QueryAnswer> {
  const res = await fetch(`${prometheusUrl}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`);
  return (await res.json()) as QueryAnswer;
}

/** Real runs of every kind the dashboard shows, one of them refused, and a schedule on the worker's queue. */
async function runEverything(): Promise<void> {
  const state = fx.sim.ctx.state;
  // A paused schedule: it starts nothing, and the worker's schedule gauges report it.
  const { vault, account } = drillVaultAndAccount(fx);
  const snapshotted = new Set(Object.values(state.snapshots).map((s) => s.resourceId));
  const vm = Object.values(state.resources).find(
    (r) => resourceCategoryOf(r.resource.resourceType) === 'virtualMachine' && snapshotted.has(r.resource.id),
  )?.resource;
  if (!vm) throw new Error('the seeded simulator has no backed-up virtual machine');
  const drillInput = {
    name: 'panels',
    resources: { ids: [vm.id] },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: { amazonBucket: { bucketName: 'dr-drill-restores', prefix: 'panels/' } },
    targets: { rpoSeconds: 3 * 86400, rtoSeconds: 600 },
  };
  await fx.env.client.schedule.create({
    scheduleId: `panels-${randomUUID().slice(0, 8)}`,
    spec: { cronExpressions: ['0 3 * * *'] },
    action: { type: 'startWorkflow', workflowType: drDrill, taskQueue: fx.worker.taskQueue, args: [drillInput] },
    state: { paused: true },
  });

  // A query export whose first query read is answered 429: the 429 and the retry are counted.
  const query = await throttledCustomersQuery(fx, account.id, 'panels');
  const exported = fx.env.client.workflow.execute(queryExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `panels-query-${randomUUID()}`,
    args: [query],
  });

  const costs = fx.env.client.workflow.execute(costExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `panels-costs-${randomUUID()}`,
    args: [{ window: 'previous-day', options: { groupBy: 'CLOUD_PROVIDER' } }],
  });
  // A window that ends before it starts: the run fails, for the failed-runs panel.
  const refused = fx.env.client.workflow.execute(costExport, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `panels-refused-${randomUUID()}`,
    args: [{ window: { startTime: '2025-01-08T00:00:00Z', endTime: '2025-01-01T00:00:00Z' } }],
  });

  const drill = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `panels-drill-${randomUUID().slice(0, 8)}`,
    args: [drillInput],
  });
  const stop = keepNudging(drill);
  const drilled = drill.result().finally(stop);
  // A recovery plan of one restore step, for the plan panels.
  const planned = fx.env.client.workflow.execute(recoveryPlan, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `panels-plan-${randomUUID().slice(0, 8)}`,
    args: [
      {
        plan: {
          name: 'panels',
          restoreAccountId: account.id,
          rtoTargetMinutes: 30,
          steps: [
            {
              id: 'server',
              kind: 'restore',
              resource: { id: vm.id },
              destination: { amazonBucket: { bucketName: 'dr-drill-restores', prefix: 'panels-plan/' } },
            },
          ],
        },
      },
    ],
  });

  await fx.control.addPolicy({ approvalWindowHours: 48, executionWindowHours: 24 });
  const restore = await fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `panels-restore-${randomUUID()}`,
    args: [
      {
        ...objectStoreTarget(fx),
        kind: 'bucket',
        destination: { bucketA: { bucketName: 'restored-objects', prefix: 'panels/' } },
        comment: 'panels test',
      },
    ],
  });
  const requestId = await waitingRequestId(restore);
  // Seen waiting by Prometheus before the approval: the approval gauges have a wait to show.
  await eventually(
    'the approval wait in runbooks_approvals_waiting',
    async () => ((await instantQuery('runbooks_approvals_waiting > 0')).data?.result.length ?? 0) > 0,
  );
  await fx.control.approve(requestId, APPROVAL);
  await nudge(restore);

  await Promise.all([restore.result(), drilled, planned, exported, costs, expect(refused).rejects.toThrow(/failed/i)]);
  await fx.control.clearPolicies();
}

test('every panel of the Grafana dashboard returns at least one series from a real Prometheus', async () => {
  await runEverything();
  const queries = panelQueries();
  expect(queries.length).toBeGreaterThan(10);
  const empty: string[] = [];
  for (const { panel, refId, expr } of queries) {
    const query = expr.replaceAll('$__rate_interval', RATE_INTERVAL);
    expect(query).not.toContain('$');
    // The last runs' series reach Prometheus within a few scrapes; a rate needs two samples of a series.
    const answer = await eventually(
      `a series for panel "${panel}" (${refId})`,
      async () => {
        const found = await instantQuery(query);
        if (found.status !== 'success') return found;
        return (found.data?.result.length ?? 0) > 0 ? found : false;
      },
      30_000,
    ).catch(() => undefined);
    if (answer?.status !== 'success') empty.push(`${panel} (${refId}): ${answer?.error ?? 'no series'} from ${query}`);
  }
  expect(empty).toEqual([]);
}, 300_000);

interface RulesAnswer {
  data: {
    groups: { name: string; rules: { name: string; health: string; lastError?: string; lastEvaluation: string }[] }[];
  };
}

test('Prometheus loads the shipped alert rules and evaluates every one without an error', async () => {
  const evaluated = await eventually(
    'every rule evaluated once',
    async () => {
      const res = await fetch(`${prometheusUrl}/api/v1/rules?type=alert`);
      const answer = (await res.json()) as RulesAnswer;
      const rules = answer.data.groups.flatMap((g) => g.rules);
      return rules.length > 0 && rules.every((r) => r.health !== 'unknown') ? rules : false;
    },
    30_000,
  );
  expect(evaluated.map((r) => r.name).sort()).toEqual(
    alertRules()
      .map((r) => r.alert)
      .sort(),
  );
  for (const rule of evaluated) {
    expect({ rule: rule.name, health: rule.health, error: rule.lastError ?? '' }).toEqual({
      rule: rule.name,
      health: 'ok',
      error: '',
    });
  }
}, 60_000);
