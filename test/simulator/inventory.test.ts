// Conformance of the inventory calls (docs/service-interface.md §4) over raw HTTP: listing with every filter and sort,
// exact paging, the key-value indexes, single resources and snapshots.
import {
  InventoryResourceDocument,
  RESOURCE_SORT_FIELDS,
  RESOURCE_TYPES,
  SnapshotBody,
  SnapshotPage,
  pageOf,
  record,
  type Snapshot,
} from '../../api';
import { resourceSortKey, sortItems } from '../../simulator/filters';
import { resourcesOfType } from '../../simulator/seed-inventory';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import {
  allPages,
  call as callSimulator,
  errorOf,
  type Method,
  type Reply,
  simulatorForSuite,
  tokenFor,
} from './helpers';

type Resource = InventoryResourceDocument;
/** The simulator's answers, decoded as the document has them: every field it requires, there. */
const ResourcePage = pageOf('resources', InventoryResourceDocument);
const ResourceBody = record({ resource: InventoryResourceDocument });

let sim: RunningSimulator;
let token: string;
let all: Resource[];

/** The body and the token come positionally here; a null token sends none. */
const call = (method: Method, path: string, body?: unknown, auth: string | null = token) =>
  callSimulator(sim, method, path, { body, token: auth ?? undefined });

const project = () => `/v1/projects/${sim.projectId}`;

async function list(body: unknown, query = ''): Promise<Reply> {
  return call('POST', `${project()}/resources${query}`, body);
}

async function listAll(body: unknown, pageSize: number, extra = ''): Promise<Resource[]> {
  const pages = await allPages(pageSize, async (query) => {
    const reply = await list(body, `${query}${extra}`);
    expect(reply.status).toBe(200);
    const page = ResourcePage.parse(reply.body);
    expect(page.resources.length).toBeLessThanOrEqual(pageSize);
    return page;
  });
  return pages.flatMap((page) => page.resources);
}

const ids = (items: readonly { id: string }[]) => items.map((r) => r.id);
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const tagPairs = (r: Resource) => Object.entries(r.tags).map(([k, v]) => `${k}=${v}`);
const apps = (r: Resource) => (r.classifications?.appsDetails?.apps ?? []).map((a) => a.name);
const dataClasses = (r: Resource) => r.classifications?.dataClassesDetails?.dataClasses ?? [];

simulatorForSuite({}, async (started, bootstrap) => {
  [sim, token] = [started, bootstrap];
  const reply = await list({}, '?pageSize=10000');
  all = ResourcePage.parse(reply.body).resources;
});

describe('seeded inventory', () => {
  test('has at least 200 resources of every type and provider, deterministic per seed', async () => {
    expect(all.length).toBeGreaterThanOrEqual(200);
    for (const type of RESOURCE_TYPES.filter((t) => t !== 'RESOURCE_TYPE_UNSPECIFIED')) {
      expect(all.filter((r) => r.resourceType === type).length).toBeGreaterThan(0);
      expect(resourcesOfType(sim.ctx.state, type).length).toBeGreaterThan(0);
    }
    const prefixes: Record<string, string> = { PA: 'PROVIDER_A', PB: 'PROVIDER_B', PC: 'PROVIDER_C', PD: 'PROVIDER_D' };
    for (const r of all) expect(r.cloudProvider).toBe(prefixes[r.resourceType.slice(0, 2)]);
    const providerAccounts = new Set(Object.values(sim.ctx.state.sourceAccounts).map((a) => a.providerAccountId));
    for (const r of all) expect(providerAccounts.has(r.providerAccountId)).toBe(true);

    const twin = await startSimulator({ port: 0, seed: 1 });
    const other = await startSimulator({ port: 0, seed: 2 });
    try {
      const shape = (state: typeof sim.ctx.state) =>
        Object.values(state.resources)
          .map((r) => `${r.resource.id} ${r.resource.resourceName} ${r.resource.providerResourceId}`)
          .sort();
      expect(shape(twin.ctx.state)).toEqual(shape(sim.ctx.state));
      expect(Object.keys(twin.ctx.state.snapshots).sort()).toEqual(Object.keys(sim.ctx.state.snapshots).sort());
      expect(shape(other.ctx.state)).not.toEqual(shape(sim.ctx.state));
    } finally {
      await twin.close();
      await other.close();
    }
  });

  test('carries the variety the filters need', () => {
    expect(all.some((r) => Object.values(r.tags).includes(''))).toBe(true);
    const environments = new Set(all.map((r) => r.classifications?.environmentDetails?.environment));
    for (const env of ['PROD', 'PROD_INTERNAL', 'STAGE']) expect(environments.has(env)).toBe(true);
    expect(new Set(all.map((r) => r.backupStatus)).size).toBeGreaterThanOrEqual(6);
    expect(all.some((r) => apps(r).length > 0 && r.classifications?.appsDetails?.apps?.[0]?.paths?.length)).toBe(true);
    expect(all.some((r) => dataClasses(r).length > 1)).toBe(true);
    expect(all.some((r) => r.vpc && r.subnets && r.subnets.length > 0)).toBe(true);
    expect(all.every((r) => r.createdTime && r.discoveredTime)).toBe(true);
    expect(all.some((r) => r.controlViolationCounts && r.controlViolationCounts.high > 0)).toBe(true);
    for (const r of all) {
      expect(Boolean(r.resourceProperties?.vmA)).toBe(r.resourceType === 'PA_VM');
      expect(Boolean(r.resourceProperties?.kvDbA)).toBe(r.resourceType === 'PA_KEYVALUE_DB');
      if (r.resourceType === 'PA_VM') expect(r.resourceProperties?.vmA?.volumes?.length).toBeGreaterThan(0);
    }
  });

  test('keeps snapshot fields consistent with the snapshots, and every relational database has two or more', () => {
    const snapshots = Object.values(sim.ctx.state.snapshots);
    expect(snapshots.length).toBeGreaterThan(100);
    for (const r of all) {
      const own = snapshots.filter((s) => s.resourceId === r.id).map((s) => s.pointInTime ?? '');
      own.sort();
      expect(r.snapshotStorage.eonSnapshotCount).toBe(own.length);
      expect(r.oldestSnapshotTime).toBe(own[0]);
      expect(r.latestSnapshotTime).toBe(own[own.length - 1]);
      if (r.resourceType === 'PA_RELATIONAL_DB') expect(own.length).toBeGreaterThanOrEqual(2);
    }
    for (const s of snapshots) {
      const resource = sim.ctx.state.resources[s.resourceId]?.resource;
      const vault = sim.ctx.state.vaults[s.vaultId ?? ''];
      expect(vault?.region).toBe(resource?.region);
      expect(Date.parse(s.expirationTime ?? '')).toBeGreaterThan(Date.parse(s.pointInTime ?? ''));
      expect(sim.ctx.state.backupJobs[s.jobId ?? '']?.snapshotId).toBe(s.id);
    }
  });
});

describe('POST /resources', () => {
  test('returns a page of 50 by default, with totalCount and nextToken', async () => {
    const reply = await list({});
    expect(reply.status).toBe(200);
    const page = ResourcePage.parse(reply.body);
    expect(page.resources).toHaveLength(50);
    expect(page.totalCount).toBe(all.length);
    expect(typeof page.nextToken).toBe('string');
    // No body at all is an empty body.
    expect((await call('POST', `${project()}/resources`)).status).toBe(200);
  });

  test('pages exactly: pageSize 7 walks the same list as one big page', async () => {
    const walked = await listAll({}, 7);
    expect(ids(walked)).toEqual(ids(all));
    expect(new Set(ids(walked)).size).toBe(all.length);
    const body = {
      filters: { cloudProvider: { in: ['PROVIDER_A', 'PROVIDER_B'] } },
      sorts: [{ field: 'resourceName', order: 'DESC' }],
    };
    const big = ResourcePage.parse((await list(body, '?pageSize=1000')).body);
    const pages = await listAll(body, 7);
    expect(ids(pages)).toEqual(ids(big.resources));
    expect(big.nextToken ?? null).toBeNull();
  });

  test('refuses bad paging parameters with 400 naming them', async () => {
    for (const query of ['?pageSize=0', '?pageSize=abc', '?pageSize=-3']) {
      const reply = await list({}, query);
      expect(reply.status).toBe(400);
      expect(errorOf(reply)).toContain('query.pageSize');
    }
    expect((await list({}, '?pageToken=garbage')).status).toBe(400);
    // A token made for other filters is refused rather than giving a wrong page.
    const first = ResourcePage.parse((await list({}, '?pageSize=5')).body);
    const reused = await list({ filters: { resourceType: { in: ['PA_VM'] } } }, `?pageToken=${first.nextToken}`);
    expect(reused.status).toBe(400);
  });

  test('returns key-value indexes only with include=DYNAMODB_INDEXES', async () => {
    const body = { filters: { resourceType: { in: ['PA_KEYVALUE_DB'] } } };
    const plain = ResourcePage.parse((await list(body, '?pageSize=100')).body).resources;
    expect(plain.length).toBeGreaterThan(0);
    for (const r of plain) {
      expect(r.resourceProperties?.kvDbA?.billingMode).toBeDefined();
      expect(r.resourceProperties?.kvDbA?.globalSecondaryIndexes).toBeUndefined();
      expect(r.resourceProperties?.kvDbA?.localSecondaryIndexes).toBeUndefined();
    }
    for (const query of ['?include=DYNAMODB_INDEXES', '?include=DYNAMODB_INDEXES&include=DYNAMODB_INDEXES']) {
      const full = ResourcePage.parse((await list(body, `${query}&pageSize=100`)).body).resources;
      for (const r of full) {
        const stored = sim.ctx.state.resources[r.id]?.resource.resourceProperties?.kvDbA;
        expect(r.resourceProperties?.kvDbA?.globalSecondaryIndexes).toEqual(stored?.globalSecondaryIndexes);
        expect(r.resourceProperties?.kvDbA?.localSecondaryIndexes).toEqual(stored?.localSecondaryIndexes);
      }
      expect(full.some((r) => (r.resourceProperties?.kvDbA?.globalSecondaryIndexes?.length ?? 0) > 0)).toBe(true);
      expect(full.some((r) => (r.resourceProperties?.kvDbA?.localSecondaryIndexes?.length ?? 0) > 0)).toBe(true);
    }
    const comma = await list(body, '?include=DYNAMODB_INDEXES,DYNAMODB_INDEXES');
    expect(comma.status).toBe(200);
    const bad = await list(body, '?include=EVERYTHING');
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('query.include');
  });

  test('refuses bad bodies with 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ filters: { cloudProvider: { in: ['PROVIDER_X'] } } }, 'body.filters.cloudProvider.in.0'],
      [{ filters: { resourceType: { in: ['RESOURCE_TYPE_UNSPECIFIED'] } } }, 'body.filters.resourceType.in.0'],
      [{ filters: { tagKeyValues: { containsAnyOf: ['novalue'] } } }, 'body.filters.tagKeyValues.containsAnyOf.0'],
      [{ sorts: [{ field: 'size', order: 'ASC' }] }, 'body.sorts.0.field'],
      [{ sorts: [{ field: 'resourceName', order: 'UP' }] }, 'body.sorts.0.order'],
    ];
    for (const [body, field] of cases) {
      const reply = await list(body);
      expect(reply.status).toBe(400);
      expect(errorOf(reply)).toContain(field);
    }
  });

  test('needs a token, the inventory.view permission and the hosted project', async () => {
    expect((await call('POST', `${project()}/resources`, {}, null)).status).toBe(401);
    const limited = await tokenFor(sim, ['jobs.view']);
    expect((await call('POST', `${project()}/resources`, {}, limited)).status).toBe(403);
    const other = '00000000-0000-4000-8000-000000000000';
    expect((await call('POST', `/v1/projects/${other}/resources`, {})).status).toBe(404);
  });
});

describe('resource filters', () => {
  // Each case: the filter body and the brute-force predicate it must agree with over the whole inventory.
  const cases = (): [string, unknown, (r: Resource) => boolean][] => {
    const a = all[3] as Resource;
    const b = all[40] as Resource;
    const env = (r: Resource) => r.classifications?.environmentDetails?.environment;
    const subnet = all.find((r) => r.subnets?.length)?.subnets?.[0] ?? '';
    const twoApps = apps(all.find((r) => apps(r).length >= 2) as Resource).slice(0, 2);
    const twoClasses = dataClasses(all.find((r) => dataClasses(r).length >= 2) as Resource).slice(0, 2);
    const emptyTag = all.flatMap((r) => Object.entries(r.tags)).find(([, v]) => v === '')?.[0] ?? '';
    return [
      ['id.in', { id: { in: [a.id, b.id] } }, (r) => r.id === a.id || r.id === b.id],
      ['id.notIn', { id: { notIn: [a.id] } }, (r) => r.id !== a.id],
      ['cloudProvider.in', { cloudProvider: { in: ['PROVIDER_D'] } }, (r) => r.cloudProvider === 'PROVIDER_D'],
      [
        'cloudProvider.notIn',
        { cloudProvider: { notIn: ['PROVIDER_A', 'PROVIDER_B'] } },
        (r) => !['PROVIDER_A', 'PROVIDER_B'].includes(r.cloudProvider),
      ],
      [
        'providerResourceId.in',
        { providerResourceId: { in: [a.providerResourceId] } },
        (r) => r.providerResourceId === a.providerResourceId,
      ],
      [
        'providerResourceId.notIn',
        { providerResourceId: { notIn: [b.providerResourceId] } },
        (r) => r.providerResourceId !== b.providerResourceId,
      ],
      ['resourceName.in', { resourceName: { in: [a.resourceName] } }, (r) => r.resourceName === a.resourceName],
      ['resourceName.notIn', { resourceName: { notIn: [a.resourceName] } }, (r) => r.resourceName !== a.resourceName],
      [
        'resourceName.contains',
        { resourceName: { contains: ['-db-', '-vm-'] } },
        (r) => r.resourceName.includes('-db-') || r.resourceName.includes('-vm-'),
      ],
      [
        'resourceName.notContains',
        { resourceName: { notContains: ['prod'] } },
        (r) => !r.resourceName.includes('prod'),
      ],
      [
        'resourceType.in',
        { resourceType: { in: ['PA_VM', 'PC_VM'] } },
        (r) => r.resourceType === 'PA_VM' || r.resourceType === 'PC_VM',
      ],
      ['resourceType.notIn', { resourceType: { notIn: ['PA_VM'] } }, (r) => r.resourceType !== 'PA_VM'],
      ['environment.in', { environment: { in: ['STAGE'] } }, (r) => env(r) === 'STAGE'],
      ['environment.notIn', { environment: { notIn: ['PROD'] } }, (r) => env(r) !== 'PROD'],
      [
        'accountId.in',
        { accountId: { in: [a.providerAccountId] } },
        (r) => r.providerAccountId === a.providerAccountId,
      ],
      [
        'accountId.notIn',
        { accountId: { notIn: [a.providerAccountId] } },
        (r) => r.providerAccountId !== a.providerAccountId,
      ],
      [
        'apps.containsAnyOf',
        { apps: { containsAnyOf: ['orders', 'crm'] } },
        (r) => apps(r).some((x) => ['orders', 'crm'].includes(x)),
      ],
      ['apps.containsAllOf', { apps: { containsAllOf: twoApps } }, (r) => twoApps.every((x) => apps(r).includes(x))],
      ['apps.containsNoneOf', { apps: { containsNoneOf: ['orders'] } }, (r) => !apps(r).includes('orders')],
      ['subnets.containsAnyOf', { subnets: { containsAnyOf: [subnet] } }, (r) => (r.subnets ?? []).includes(subnet)],
      ['subnets.containsAllOf', { subnets: { containsAllOf: [subnet] } }, (r) => (r.subnets ?? []).includes(subnet)],
      ['subnets.containsNoneOf', { subnets: { containsNoneOf: [subnet] } }, (r) => !(r.subnets ?? []).includes(subnet)],
      [
        'dataClasses.containsAnyOf',
        { dataClasses: { containsAnyOf: ['PII', 'PHI'] } },
        (r) => dataClasses(r).some((x) => x === 'PII' || x === 'PHI'),
      ],
      [
        'dataClasses.containsAllOf',
        { dataClasses: { containsAllOf: twoClasses } },
        (r) => twoClasses.every((x) => dataClasses(r).includes(x)),
      ],
      [
        'dataClasses.containsNoneOf',
        { dataClasses: { containsNoneOf: ['PII'] } },
        (r) => !dataClasses(r).includes('PII'),
      ],
      [
        'backupStatus.in',
        { backupStatus: { in: ['PROTECTED', 'NOT_BACKED_UP'] } },
        (r) => ['PROTECTED', 'NOT_BACKED_UP'].includes(r.backupStatus),
      ],
      ['backupStatus.notIn', { backupStatus: { notIn: ['PROTECTED'] } }, (r) => r.backupStatus !== 'PROTECTED'],
      [
        'tagKeys.containsAnyOf',
        { tagKeys: { containsAnyOf: ['compliance', emptyTag] } },
        (r) => 'compliance' in r.tags || emptyTag in r.tags,
      ],
      [
        'tagKeys.containsAllOf',
        { tagKeys: { containsAllOf: ['owner', 'cost-center'] } },
        (r) => 'owner' in r.tags && 'cost-center' in r.tags,
      ],
      ['tagKeys.containsNoneOf', { tagKeys: { containsNoneOf: ['owner'] } }, (r) => !('owner' in r.tags)],
      [
        'tagKeyValues.containsAnyOf',
        { tagKeyValues: { containsAnyOf: ['team=data', `${emptyTag}=`] } },
        (r) => tagPairs(r).includes('team=data') || r.tags[emptyTag] === '',
      ],
      [
        'tagKeyValues.containsAllOf',
        { tagKeyValues: { containsAllOf: ['team=data', 'env=prod'] } },
        (r) => r.tags.team === 'data' && r.tags.env === 'prod',
      ],
      [
        'tagKeyValues.containsNoneOf',
        { tagKeyValues: { containsNoneOf: ['team=data'] } },
        (r) => r.tags.team !== 'data',
      ],
      [
        'several filters together',
        {
          cloudProvider: { in: ['PROVIDER_A'] },
          backupStatus: { notIn: ['PROTECTED'] },
          tagKeys: { containsAnyOf: ['owner'] },
        },
        (r) => r.cloudProvider === 'PROVIDER_A' && r.backupStatus !== 'PROTECTED' && 'owner' in r.tags,
      ],
    ];
  };

  test('every filter agrees with a brute-force computation over the whole inventory', async () => {
    for (const [name, filters, predicate] of cases()) {
      const reply = await list({ filters }, '?pageSize=1000');
      expect({ name, status: reply.status }).toEqual({ name, status: 200 });
      const page = ResourcePage.parse(reply.body);
      const expected = all.filter(predicate);
      expect({ name, ids: ids(page.resources) }).toEqual({ name, ids: ids(expected) });
      expect(page.totalCount).toBe(expected.length);
      // A filter that keeps everything or nothing would prove little.
      expect({ name, selective: expected.length > 0 && expected.length < all.length }).toEqual({
        name,
        selective: true,
      });
    }
  });

  test('an empty `in` list matches nothing', async () => {
    const page = ResourcePage.parse((await list({ filters: { id: { in: [] } } })).body);
    expect(page.resources).toHaveLength(0);
    expect(page.totalCount).toBe(0);
  });
});

describe('resource sorts', () => {
  // The comparison (missing values last, the ID breaking ties) and each field's value are checked in filters.test.ts.
  type SortField = (typeof RESOURCE_SORT_FIELDS)[number];
  const sortedBy = (items: Resource[], sorts: readonly { field: SortField; order: 'ASC' | 'DESC' }[]) =>
    sortItems(items, sorts, resourceSortKey, (r) => r.id);

  test('each sort field, ascending and descending, agrees with a sort of every resource by its value', async () => {
    for (const field of RESOURCE_SORT_FIELDS) {
      for (const order of ['ASC', 'DESC'] as const) {
        const sorts = [{ field, order }];
        const page = ResourcePage.parse((await list({ sorts }, '?pageSize=1000')).body);
        expect({ field, order, ids: ids(page.resources) }).toEqual({ field, order, ids: ids(sortedBy(all, sorts)) });
      }
      // The field must separate resources for the check to mean anything.
      expect(new Set(all.map((r) => resourceSortKey(r, field))).size).toBeGreaterThan(2);
    }
  });

  test('several sorts apply in list order', async () => {
    const sorts = [
      { field: 'clusterName', order: 'DESC' },
      { field: 'resourceName', order: 'ASC' },
    ] as const;
    const page = ResourcePage.parse((await list({ sorts }, '?pageSize=1000')).body);
    expect(ids(page.resources)).toEqual(ids(sortedBy(all, sorts)));
    const walked = await listAll({ sorts }, 7);
    expect(ids(walked)).toEqual(ids(page.resources));
  });

  test('without sorts the order is by ID', () => {
    expect(ids(all)).toEqual(ids([...all].sort(byId)));
  });
});

describe('GET /resources/:id', () => {
  test('returns the resource, its indexes only when included; 404 when unknown', async () => {
    const kv = all.find((r) => r.resourceType === 'PA_KEYVALUE_DB') as Resource;
    const reply = await call('GET', `${project()}/resources/${kv.id}`);
    expect(reply.status).toBe(200);
    const { resource } = ResourceBody.parse(reply.body);
    expect(resource).toEqual(kv);
    expect(resource.resourceProperties?.kvDbA?.globalSecondaryIndexes).toBeUndefined();
    const full = ResourceBody.parse(
      (await call('GET', `${project()}/resources/${kv.id}?include=DYNAMODB_INDEXES`)).body,
    );
    expect(full.resource.resourceProperties?.kvDbA?.globalSecondaryIndexes?.length).toBeGreaterThan(0);
    expect((await call('GET', `${project()}/resources/no-such-resource`)).status).toBe(404);
    expect((await call('GET', `${project()}/resources/${kv.id}`, undefined, null)).status).toBe(401);
    expect(
      (await call('GET', `${project()}/resources/${kv.id}`, undefined, await tokenFor(sim, ['jobs.view']))).status,
    ).toBe(403);
  });
});

describe('snapshots', () => {
  const withMost = () =>
    [...all].sort(
      (a, b) => (b.snapshotStorage.eonSnapshotCount ?? 0) - (a.snapshotStorage.eonSnapshotCount ?? 0),
    )[0] as Resource;
  const snapshotsPath = (id: string) => `${project()}/resources/${id}/snapshots`;

  test('lists a resource`s snapshots, newest first by default, and sorts by pointInTime', async () => {
    const resource = withMost();
    const reply = await call('POST', snapshotsPath(resource.id), {});
    expect(reply.status).toBe(200);
    const page = SnapshotPage.parse(reply.body);
    expect(page.totalCount).toBe(resource.snapshotStorage.eonSnapshotCount);
    expect(page.snapshots.every((s) => s.resourceId === resource.id && s.projectId === sim.projectId)).toBe(true);
    const times = page.snapshots.map((s) => s.pointInTime ?? '');
    expect(times).toEqual([...times].sort().reverse());
    expect(page.snapshots[0]?.pointInTime).toBe(resource.latestSnapshotTime);
    const asc = SnapshotPage.parse(
      (await call('POST', snapshotsPath(resource.id), { sorts: [{ field: 'pointInTime', order: 'ASC' }] })).body,
    );
    expect(asc.snapshots.map((s) => s.pointInTime)).toEqual([...times].reverse());
  });

  test('filters by inclusive pointInTime dates and pages exactly', async () => {
    const resource = withMost();
    const own = Object.values(sim.ctx.state.snapshots).filter((s) => s.resourceId === resource.id);
    const days = own.map((s) => (s.pointInTime ?? '').slice(0, 10)).sort();
    const startDate = days[1] as string;
    const endDate = days[days.length - 2] as string;
    const inRange = (s: Snapshot) => {
      const day = (s.pointInTime ?? '').slice(0, 10);
      return day >= startDate && day <= endDate;
    };
    const body = { filters: { pointInTime: { startDate, endDate } } };
    const page = SnapshotPage.parse((await call('POST', snapshotsPath(resource.id), body)).body);
    expect(page.snapshots.map((s) => s.id).sort()).toEqual(
      own
        .filter(inRange)
        .map((s) => s.id)
        .sort(),
    );
    expect(page.snapshots.length).toBeLessThan(own.length);
    const onlyStart = SnapshotPage.parse(
      (await call('POST', snapshotsPath(resource.id), { filters: { pointInTime: { startDate: endDate } } })).body,
    );
    expect(onlyStart.totalCount).toBe(own.filter((s) => (s.pointInTime ?? '').slice(0, 10) >= endDate).length);

    const pages = await allPages(1, async (query) =>
      SnapshotPage.parse((await call('POST', `${snapshotsPath(resource.id)}${query}`, {})).body),
    );
    const walked = pages.flatMap((p) => p.snapshots.map((s) => s.id));
    const whole = SnapshotPage.parse((await call('POST', snapshotsPath(resource.id), {})).body);
    expect(walked).toEqual(whole.snapshots.map((s) => s.id));
  });

  test('refuses bad requests: 400 bad date, 404 unknown resource, 401, 403', async () => {
    const resource = withMost();
    const bad = await call('POST', snapshotsPath(resource.id), {
      filters: { pointInTime: { startDate: '2024/01/01' } },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('body.filters.pointInTime.startDate');
    expect((await call('POST', `${snapshotsPath(resource.id)}?pageSize=0`, {})).status).toBe(400);
    expect((await call('POST', snapshotsPath('no-such-resource'), {})).status).toBe(404);
    expect((await call('POST', snapshotsPath(resource.id), {}, null)).status).toBe(401);
    expect((await call('POST', snapshotsPath(resource.id), {}, await tokenFor(sim, ['jobs.view']))).status).toBe(403);
  });

  test('GET /snapshots/:id returns the snapshot; 404 when unknown', async () => {
    const snapshot = Object.values(sim.ctx.state.snapshots)[0] as Snapshot;
    const reply = await call('GET', `${project()}/snapshots/${snapshot.id}`);
    expect(reply.status).toBe(200);
    expect(SnapshotBody.parse(reply.body).snapshot).toEqual(snapshot);
    expect((await call('GET', `${project()}/snapshots/no-such-snapshot`)).status).toBe(404);
    expect((await call('GET', `${project()}/snapshots/${snapshot.id}`, undefined, null)).status).toBe(401);
  });
});
