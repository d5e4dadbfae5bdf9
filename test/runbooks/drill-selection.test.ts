import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { BackupServiceClient, closeHttpPools, type InventoryResource } from '../../api';
import { FailureType } from '../../contracts';
import { resolveSelection, type DrillSelection, type ResourceRef } from '../../runbooks/dr-drill/activities';
import { drillPartActivities } from '../../runbooks/dr-drill/parts';
import { selectIds } from '../../runbooks/dr-drill/selection';
import { generateInventory } from '../../simulator/seed-inventory-bulk';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { readFile, rm } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A drill's selection resolved by its activity against the in-process simulator's inventory (a seeded one, and 2,000
// generated resources): what the service's filters narrow, the activity decides, and the inventory as it is now.
let sim: RunningSimulator;
let publicSim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11 });
  generateInventory(sim.ctx.state, sim.ctx.clock.now(), {
    resources: 2_000,
    snapshotsPerResource: 0,
    cloudProvider: 'PROVIDER_A',
    seed: 3,
  });
  publicSim = await startSimulator({ port: 0, seed: 11, dialect: 'public' });
});

afterAll(async () => {
  await sim.close();
  await publicSim.close();
  await closeHttpPools();
});

const clientOf = (s: RunningSimulator) =>
  new BackupServiceClient({ baseUrl: s.baseUrl, projectId: s.projectId, credentials: s });

/** One attempt of the activity's resolution. */
function resolve(selection: DrillSelection, s: RunningSimulator = sim) {
  const env = new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') });
  return env.run<[], ResourceRef[], () => Promise<ResourceRef[]>>(() => resolveSelection(clientOf(s), selection));
}

/** Every resource of a simulator's inventory, read from its state (not through the service's filters). */
const inventory = (s: RunningSimulator): InventoryResource[] =>
  Object.values(s.ctx.state.resources).map((r) => r.resource);

const BIG = { maxResources: 5_000 };

describe('a selection resolved against the inventory', () => {
  const selections: [string, DrillSelection | (() => DrillSelection)][] = [
    ['all protected resources', { all: true, ...BIG }],
    ['production by environment', { environments: ['PROD'], ...BIG }],
    ['a tag equals', { tags: [{ key: 'env', equals: 'prod' }], ...BIG }],
    [
      'tag conditions of every kind',
      {
        tags: [
          { key: 'env', anyOf: ['prod', 'stage'] },
          { key: 'owner', exists: true },
          { key: 'compliance', not: { equals: 'pci' } },
          { key: 'do-not-delete', exists: false },
        ],
        ...BIG,
      },
    ],
    [
      'two anyOf (the second decided by the activity alone)',
      {
        tags: [
          { key: 'compliance', anyOf: ['pci', 'sox'] },
          { key: 'env', anyOf: ['prod'] },
        ],
        ...BIG,
      },
    ],
    ['databases and VMs', { resourceTypes: ['PA_RELATIONAL_DB', 'PA_VM'], ...BIG }],
    ['a region (filtered by the activity)', () => ({ regions: [inventory(sim)[0]?.region ?? 'none'], ...BIG })],
    ['an account', () => ({ accounts: [inventory(sim)[0]?.providerAccountId ?? 'none'], ...BIG })],
  ];

  test.each(selections)('%s: the IDs the conditions take over the whole inventory, sorted by ID', async (_n, given) => {
    const selection = typeof given === 'function' ? given() : given;
    const resolved = await resolve(selection);
    const expected = selectIds(inventory(sim), selection);
    expect(expected.length).toBeGreaterThan(0);
    expect(resolved.map((r) => r.id)).toEqual(expected);
    expect(resolved.map((r) => r.id)).toEqual(resolved.map((r) => r.id).sort());
  });

  test('a hand-written check of one: production databases tagged backup, in the generated account', async () => {
    const account = Object.values(sim.ctx.state.sourceAccounts).find((a) => a.name.startsWith('generated-'));
    const selection: DrillSelection = {
      resourceTypes: ['PA_RELATIONAL_DB'],
      environments: ['PROD'],
      accounts: [account?.providerAccountId ?? 'none'],
      tags: [{ key: 'backup', exists: true }],
      ...BIG,
    };
    const expected = inventory(sim)
      .filter(
        (r) =>
          r.resourceType === 'PA_RELATIONAL_DB' &&
          r.classifications?.environmentDetails?.environment === 'PROD' &&
          r.providerAccountId === account?.providerAccountId &&
          r.tags !== undefined &&
          'backup' in r.tags,
      )
      .map((r) => r.id)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect((await resolve(selection)).map((r) => r.id)).toEqual(expected);
  });

  test('includes are in whatever the conditions say, excludes out, an include the inventory lacks is skipped', async () => {
    const unprotected = inventory(sim).find((r) => r.backupStatus !== 'PROTECTED');
    const [first, second] = selectIds(inventory(sim), { all: true });
    const selection: DrillSelection = {
      all: true,
      include: [unprotected?.id ?? 'none', 'no-such-resource'],
      exclude: [first ?? 'none', second ?? 'none'],
      ...BIG,
    };
    const ids = (await resolve(selection)).map((r) => r.id);
    expect(ids).toContain(unprotected?.id);
    expect(ids).not.toContain(first);
    expect(ids).not.toContain(second);
    expect(ids).not.toContain('no-such-resource');
    expect(ids).toEqual(selectIds(inventory(sim), selection));
  });

  test('every attempt resolves the same list, with what a drill keeps of each resource', async () => {
    const selection: DrillSelection = { environments: ['STAGE'], ...BIG };
    const [a, b] = await Promise.all([resolve(selection), resolve(selection)]);
    expect(a).toEqual(b);
    const one = inventory(sim).find((r) => r.id === a[0]?.id);
    expect(a[0]).toEqual({
      id: one?.id,
      providerResourceId: one?.providerResourceId,
      resourceName: one?.resourceName,
      resourceType: one?.resourceType,
      region: one?.region,
    });
  });

  test('more than maxResources is refused whole, naming the count; exactly as many is taken', async () => {
    const selection: DrillSelection = { all: true, maxResources: 25 };
    const count = selectIds(inventory(sim), selection).length;
    const refused = await resolve(selection).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({
      type: FailureType.InvalidInput,
      nonRetryable: true,
      details: [{ field: 'resources.maxResources', matched: count, maxResources: 25 }],
    });
    expect((refused as Error).message).toContain(`the selection takes ${count} resources, more than maxResources (25)`);
    const exactly = await resolve({ all: true, maxResources: count });
    expect(exactly).toHaveLength(count);
  });

  test('follows the inventory: a resource tagged since is taken at the next resolution, one gone is not', async () => {
    const selection: DrillSelection = { tags: [{ key: 'drill-scope', equals: 'yes' }], ...BIG };
    await expect(resolve(selection)).resolves.toEqual([]);
    const [a, b] = inventory(sim);
    if (!a || !b) throw new Error('an empty inventory');
    a.tags = { ...a.tags, 'drill-scope': 'yes' };
    b.tags = { ...b.tags, 'drill-scope': 'yes' };
    expect((await resolve(selection)).map((r) => r.id)).toEqual([a.id, b.id].sort());
    const record = sim.ctx.state.resources[b.id];
    delete sim.ctx.state.resources[b.id];
    try {
      expect((await resolve(selection)).map((r) => r.id)).toEqual([a.id]);
    } finally {
      if (record) sim.ctx.state.resources[b.id] = record;
    }
  });

  test('the earlier forms resolve as before: by name', async () => {
    const some = inventory(sim).slice(0, 5);
    const byIds = await resolve({ ids: some.map((r) => r.id) });
    expect(byIds.map((r) => r.resourceName)).toEqual(some.map((r) => r.resourceName).sort());
    const byFilters = await resolve({ filters: { environment: { in: ['STAGE'] } }, ...BIG });
    expect(new Set(byFilters.map((r) => r.id))).toEqual(
      new Set(selectIds(inventory(sim), { environments: ['STAGE'] })),
    );
  });

  test("in the public dialect: neutral types meet the service's own tokens", async () => {
    const selection: DrillSelection = {
      resourceTypes: ['PA_RELATIONAL_DB'],
      tags: [{ key: 'env', exists: true }],
      ...BIG,
    };
    const resolved = await resolve(selection, publicSim);
    expect(resolved.length).toBeGreaterThan(0);
    expect(resolved.map((r) => r.id)).toEqual(selectIds(inventory(publicSim), selection));
  });
});

test("the drill's first activity keeps the resolved list in its file, in that order", async () => {
  const outputDir = mkdtempSync(join(tmpdir(), 'drill-selection-'));
  try {
    const activities = drillPartActivities({ client: clientOf(sim), outputDir } as Parameters<
      typeof drillPartActivities
    >[0]);
    const selection: DrillSelection = { environments: ['PROD'], tags: [{ key: 'tier', exists: false }], ...BIG };
    const env = new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') });
    const selected = await env.run<
      [],
      { total: number; resources: { path: string } },
      () => ReturnType<typeof activities.selectDrillResources>
    >(() => activities.selectDrillResources({ selection, workflowId: 'drill-selection', runId: 'run-1' }));
    const ids = selectIds(inventory(sim), selection);
    expect(selected.total).toBe(ids.length);
    const lines = (await readFile(selected.resources.path, 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(ids);
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
});
