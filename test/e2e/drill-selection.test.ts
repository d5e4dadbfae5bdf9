// A drill whose resources are a selection, end to end on the simulator and a dev server: each run resolves it against
// the inventory as it is when that run starts (a resource tagged since is in the next run, an excluded one never), and
// a selection that grows past its bound refuses the run, naming the count, before anything is taken.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { InventoryResource } from '../../api';
import { FailureType } from '../../contracts';
import { drDrill } from '../../runbooks/workflows';
import type { DrDrillInput, DrDrillResult } from '../../runbooks/dr-drill/contract';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { bucketDestination, drillTargets, failureOf, nudgedResult, e2eSuite } from './helpers';

const fx = e2eSuite();

/** Tags a resource in the simulator's inventory, as a team would in its cloud account. */
function tag(resource: InventoryResource, key: string, value: string) {
  const record = fx.sim.ctx.state.resources[resource.id];
  if (!record) throw new Error(`no resource ${resource.id}`);
  record.resource.tags = { ...record.resource.tags, [key]: value };
}

function start(input: DrDrillInput, run: number): Promise<WorkflowHandle<typeof drDrill>> {
  return fx.env.client.workflow.start(drDrill, {
    taskQueue: fx.worker.taskQueue,
    workflowId: `drill-${input.name}-run-${run}`,
    args: [input],
  });
}

async function reportOf(handle: WorkflowHandle<typeof drDrill>): Promise<DrillReport> {
  const result: DrDrillResult = await nudgedResult(handle);
  return JSON.parse(await readFile(result.report.json, 'utf8')) as DrillReport;
}

test('each run resolves the selection against the inventory as it is then; excludes stay out; past the bound, nothing is taken', async () => {
  const { vault, account, resources } = drillTargets(fx);
  const [a, b, c, d, e] = resources;
  if (!a || !b || !c || !d || !e) throw new Error('the seeded simulator has fewer than 5 drillable resources');
  const scope = `scope-${randomUUID().slice(0, 8)}`;
  for (const r of [a, b, c]) tag(r, 'drill-scope', scope);
  tag(e, 'drill-scope', 'another');
  const input: DrDrillInput = {
    name: `selection-${randomUUID().slice(0, 8)}`,
    resources: {
      tags: [{ key: 'drill-scope', anyOf: [scope, 'another'] }],
      regions: [vault.region],
      exclude: [e.id],
      maxResources: 3,
    },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: bucketDestination('dr-drill-restores', 'selection/'),
    targets: { rpoSeconds: 400 * 86400, rtoSeconds: 600 },
    retentionDays: 3,
    parallelism: 3,
  };

  // The first run: the three tagged, sorted by ID; the excluded one is not drilled.
  const first = await reportOf(await start(input, 1));
  expect(first.resources.map((r) => r.resourceId)).toEqual([a.id, b.id, c.id].sort());

  // A resource untagged and another tagged since: the next run follows the inventory.
  const record = fx.sim.ctx.state.resources[c.id];
  if (record)
    record.resource.tags = Object.fromEntries(
      Object.entries(record.resource.tags).filter(([k]) => k !== 'drill-scope'),
    );
  tag(d, 'drill-scope', scope);
  const second = await reportOf(await start(input, 2));
  expect(second.resources.map((r) => r.resourceId)).toEqual([a.id, b.id, d.id].sort());
  expect(second.summary.total).toBe(3);

  // One more tagged: four now match a bound of three, and the run refuses before any restore.
  tag(c, 'drill-scope', scope);
  const third = await start(input, 3);
  const failure = await failureOf(third);
  expect(failure.type).toBe(FailureType.InvalidInput);
  expect(failure.message).toContain(
    'invalid input resources.maxResources: the selection takes 4 resources, more than maxResources (3); nothing was taken',
  );
  const { events } = await third.fetchHistory();
  const scheduled = (events ?? []).flatMap((ev) => ev.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  expect(scheduled).toEqual(['selectDrillResources', 'notify']);
}, 180_000);
