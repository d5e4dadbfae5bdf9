// A rotating drill (`coverage: {withinDays, perRun}`) end to end on the simulator and a dev server: each run drills at
// most perRun resources of its selection, those its sealed reports say are most due: a failure again at the next run,
// then those never drilled, then the oldest verified PASS. Every resource is drilled once before any passing one twice.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { drDrill } from '../../runbooks/workflows';
import { bucketDestination, drillTargets, nudgedResult, e2eSuite } from './helpers';

const fx = e2eSuite();

async function run(input: DrDrillInput, n: number): Promise<DrillReport> {
  const handle: WorkflowHandle<typeof drDrill> = await fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${input.name}-run-${n}`,
    args: [input],
  });
  const result: DrDrillResult = await nudgedResult(handle);
  return JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
}

test('six resources, two a run: a failure again at the next run, each resource once before any passing one twice', async () => {
  const { vault, account, resources } = drillTargets(fx);
  const inScope = resources.slice(0, 6);
  if (inScope.length < 6) throw new Error('the seeded simulator has fewer than 6 drillable resources');
  const scope = `rotation-${randomUUID().slice(0, 8)}`;
  for (const r of inScope) {
    const record = fx.sim.ctx.state.resources[r.id];
    if (record) record.resource.tags = { ...record.resource.tags, 'drill-scope': scope };
  }
  const ids = inScope.map((r) => r.id).sort();
  const input: DrDrillInput = {
    name: scope,
    resources: { tags: [{ key: 'drill-scope', equals: scope }], maxResources: 6 },
    coverage: { withinDays: 90, perRun: 2 },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: bucketDestination('dr-drill-restores', 'rotation/'),
    targets: { rpoSeconds: 400 * 86400, rtoSeconds: 600 },
    retentionDays: 3,
    parallelism: 2,
  };
  const picked = (r: DrillReport) => r.rotation?.picked.map((p) => [p.resourceId, p.reason]);

  // The first run: the first two never drilled, by ID; the first one's restore fails.
  const failing = ids[0] ?? '';
  fx.sim.ctx.state.jobsConfig.outcomes[failing] = 'JOB_FAILED';
  const first = await run(input, 1);
  delete fx.sim.ctx.state.jobsConfig.outcomes[failing];
  expect(picked(first)).toEqual([
    [ids[0], 'never-drilled'],
    [ids[1], 'never-drilled'],
  ]);
  expect(first.rotation).toMatchObject({ scope: 6, withinDays: 90, perRun: 2 });
  expect(first.resources.find((r) => r.resourceId === failing)?.verdict).toBe('FAIL');

  // The failure is drilled again at the next run, ahead of those never drilled.
  const second = await run(input, 2);
  expect(picked(second)).toEqual([
    [failing, 'failed-last'],
    [ids[2], 'never-drilled'],
  ]);
  const third = await run(input, 3);
  expect(picked(third)).toEqual([
    [ids[3], 'never-drilled'],
    [ids[4], 'never-drilled'],
  ]);
  // The last never drilled, then the oldest verified PASS: the first run's.
  const fourth = await run(input, 4);
  expect(picked(fourth)).toEqual([
    [ids[5], 'never-drilled'],
    [ids[1], 'oldest-pass'],
  ]);
  for (const report of [first, second, third, fourth]) expect(report.resources.length).toBeLessThanOrEqual(2);
  const drilled = [first, second, third, fourth].flatMap((r) => r.resources.map((x) => x.resourceId));
  expect(new Set(drilled)).toEqual(new Set(ids));
}, 240_000);
