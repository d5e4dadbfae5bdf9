// A rotating drill over a real estate's size for 90 simulated days: 5,000 generated resources, a selection of 1,200 of
// them, `coverage: {withinDays: 90, perRun: 20}`, one run a simulated day. Reports' times and the rotation's "now" are
// workflow time, so each day runs on a time-skipping test server of its own, its clock moved to the day, the
// simulator's clock moved with it; the simulator, the output folder and the runbook worker's code are the real ones.
// A server a day is the rotation's own promise at work: its state is the sealed reports, not Temporal's history. (One
// server for the 90 days would stop skipping time: it keeps a lock for every activity that ends after its workflow,
// as a look the job watcher replaced may.) The test server has no schedules: the test starts each day's run as a
// daily schedule would.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Client } from '@temporalio/client';
import { coverageByResource, DAY_MS } from '../../history/coverage';
import { DrillReader } from '../../history/drill-index';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { drDrill } from '../../runbooks/workflows';
import { startTimeSkippingEnv } from '../helpers/temporal';
import { bucketDestination, drillVaultAndAccount, e2eSuite, startWorker } from './helpers';

const ESTATE = 5_000;
const SCOPE = 1_200;
const PER_RUN = 20;
const DAYS = 90;
const DRILLABLE = ['PA_VM', 'PA_OBJECT_STORE', 'PA_FILE_SYSTEM'] as const;

const fx = e2eSuite({ timeSkipping: true });

/** A run of the drill at `at` (ms, workflow time) on a server of its own: its report. */
async function runAt(at: number, workflowId: string, input: DrDrillInput): Promise<DrillReport> {
  const env = await startTimeSkippingEnv();
  try {
    // A server with no workflow yet skips the whole wait at once.
    const wait = at - (await env.currentTimeMs());
    if (wait > 0) await env.sleep(wait);
    const worker = await startWorker({ ...fx, env }, { connection: env.nativeConnection });
    try {
      // Not nudged: the server skips the waits between looks, and a signal a second would start a new workflow task
      // before the last one ends, on this server, so that none of them ends.
      const client = new Client({ connection: env.connection, namespace: env.namespace ?? 'default' });
      const handle = await client.workflow.start(drDrill, { taskQueue: worker.taskQueue, workflowId, args: [input] });
      const result: DrDrillResult = await handle.result();
      return JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
    } finally {
      await worker.stop();
    }
  } finally {
    await env.teardown();
  }
}

test(`${ESTATE} resources, ${SCOPE} selected, ${PER_RUN} a day for ${DAYS} days: each drilled once before any twice, none overdue at the end`, async () => {
  // Jobs end as they start: a run takes about a second of real time.
  await fx.control.jobsConfig({ restoreSeconds: 0 });

  // The estate: 5,000 generated resources in a new source account. 1,200 of the drillable ones carry the scope's tag,
  // their snapshot moved into the drill's vault (the generator spreads them over every vault) and kept past the 90 days.
  const generated = await fetch(`${fx.sim.baseUrl}/_simulator/inventory/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resources: ESTATE, snapshotsPerResource: 1, cloudProvider: 'PROVIDER_A', seed: 38 }),
  });
  const estate = (await generated.json()) as { sourceAccountId: string; resources: number };
  expect(estate.resources).toBe(ESTATE);
  const state = fx.sim.ctx.state;
  const { vault, account } = drillVaultAndAccount(fx);
  const scope = `estate-${randomUUID().slice(0, 8)}`;
  const chosen = Object.values(state.resources)
    .filter((r) => r.sourceAccountId === estate.sourceAccountId)
    .map((r) => r.resource)
    .filter((r) => (DRILLABLE as readonly string[]).includes(r.resourceType))
    .sort((a, b) => a.id.localeCompare(b.id))
    .slice(0, SCOPE);
  expect(chosen).toHaveLength(SCOPE);
  const ids = chosen.map((r) => r.id);
  const selected = new Set(ids);
  for (const r of chosen) {
    r.tags = { ...r.tags, 'drill-scope': scope };
    r.region = vault.region;
  }
  const kept = new Date(fx.sim.ctx.clock.now() + 400 * DAY_MS).toISOString();
  for (const s of Object.values(state.snapshots)) {
    if (!selected.has(s.resourceId)) continue;
    s.vaultId = vault.id;
    s.expirationTime = kept;
  }

  const input: DrDrillInput = {
    name: scope,
    resources: { tags: [{ key: 'drill-scope', equals: scope }], resourceTypes: [...DRILLABLE], maxResources: 2_000 },
    coverage: { withinDays: DAYS, perRun: PER_RUN },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: bucketDestination('dr-drill-restores', 'estate/'),
    targets: { rpoSeconds: 400 * 86400, rtoSeconds: 3600 },
    // No backup runs in the 90 days: each resource's one snapshot ages with them, and stays the point restored.
    recoveryPoint: { select: 'latest', windowDays: 365 },
    retentionDays: 1,
    parallelism: PER_RUN,
  };

  // Day 6's first pick fails its restore: it is drilled again on day 7, ahead of the rest.
  const failing = ids[(6 - 1) * PER_RUN] ?? '';
  const reports: DrillReport[] = [];
  const firstStart = Date.now();
  for (let day = 1; day <= DAYS; day++) {
    // The simulator's clock keeps pace with the runs' (its snapshots age, its tokens expire).
    if (day > 1) await fx.control.advanceClock(DAY_MS / 1000);
    if (day === 6) state.jobsConfig.outcomes[failing] = 'JOB_FAILED';
    reports.push(await runAt(firstStart + (day - 1) * DAY_MS, `drill-${scope}-day-${day}`, input));
    if (day === 6) delete state.jobsConfig.outcomes[failing];
  }

  const drilledOn = reports.map((r) => r.resources.map((x) => x.resourceId));
  // No run over 20, and each drilled those it picked.
  for (const [i, report] of reports.entries()) {
    expect(report.resources.length).toBeLessThanOrEqual(PER_RUN);
    expect(report.rotation?.picked.map((p) => p.resourceId).sort()).toEqual([...(drilledOn[i] ?? [])].sort());
    expect(report.rotation).toMatchObject({ scope: SCOPE, withinDays: DAYS, perRun: PER_RUN });
  }
  expect(reports[5]?.resources.find((r) => r.resourceId === failing)?.verdict).toBe('FAIL');
  expect(reports[6]?.rotation?.picked[0]).toMatchObject({ resourceId: failing, reason: 'failed-last' });
  // From the third run on (two before it give a gap), the cadence is the runs' own, daily, and 20 a day cover 1,200
  // in 90 days.
  expect(reports[0]?.rotation?.feasibility).toBeUndefined();
  for (const report of reports.slice(2)) {
    expect(report.rotation?.feasibility).toMatchObject({ basis: 'recent-runs', everySeconds: 86400, covers: true });
  }

  // Every resource drilled within the 90 days, and none twice before all were drilled once (but the failure, again
  // at the next run): 1,200 at 20 a day take 60 days, and one more for the failure's second try.
  const firstDrilled = new Map<string, number>();
  drilledOn.forEach((day, i) => day.forEach((id) => firstDrilled.has(id) || firstDrilled.set(id, i + 1)));
  expect([...firstDrilled.keys()].sort()).toEqual(ids);
  const allOnce = Math.max(...firstDrilled.values());
  expect(allOnce).toBe(SCOPE / PER_RUN + 1);
  // Before the run that drills the last of them, none drilled twice but the failure; that run fills its 20 with the
  // oldest PASSes (1,200 less the 59 × 20 − 1 drilled before it leaves one never drilled).
  const times = new Map<string, number>();
  for (const day of drilledOn.slice(0, allOnce - 1)) for (const id of day) times.set(id, (times.get(id) ?? 0) + 1);
  expect([...times].filter(([, n]) => n > 1)).toEqual([[failing, 2]]);
  const reasons = reports[allOnce - 1]?.rotation?.picked.map((p) => p.reason);
  expect(reasons).toEqual(['never-drilled', ...Array<string>(PER_RUN - 1).fill('oldest-pass')]);

  // At the end, by the sealed reports alone: every resource in scope covered, none overdue or never drilled.
  const { drills } = await new DrillReader({ outputDir: fx.outputDir }).read();
  const coverage = coverageByResource(drills, {
    now: new Date(firstStart + DAYS * DAY_MS),
    withinDays: DAYS,
    drill: scope,
  });
  expect(coverage.counts).toMatchObject({
    inScope: SCOPE,
    covered: SCOPE,
    overdue: 0,
    neverDrilled: 0,
    neverPassed: 0,
  });
}, 900_000);
