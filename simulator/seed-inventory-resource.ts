import type { CloudProvider, InventoryResourceDocument as InventoryResource, ResourceType } from '../api';
import type { Random } from './random';

/** One seeded inventory resource: names, tags, classifications, network, volumes and key-value indexes. */

const DAY_MS = 86_400_000;
export interface ResourceSeedEnv {
  random: Random;
  anchor: number;
  /** One network (vpc and subnets) per account and region, shared by the resources placed there. */
  networks: Map<string, { vpc: string; subnets: string[] }>;
}

interface ResourceSpec {
  type: ResourceType;
  provider: CloudProvider;
  index: number;
  region: string;
  providerAccountId: string;
  hasSnapshots: boolean;
}

const GIB = 2 ** 30;
const APPS = ['orders', 'billing', 'checkout', 'catalog', 'search', 'analytics', 'auth', 'ledger', 'crm', 'media'];
const TEAMS = ['platform', 'data', 'payments', 'web', 'sre'];
const OWNERS = ['alice', 'bob', 'carol', 'dave', 'erin'];
const DATA_CLASSES = ['PII', 'PHI', 'PCI', 'FINANCIAL', 'CREDENTIALS', 'SOURCE_CODE'];
const ENVIRONMENTS = ['PROD', 'PROD', 'PROD_INTERNAL', 'STAGE'] as const;
const ENV_SHORT: Record<string, string> = { PROD: 'prod', PROD_INTERNAL: 'int', STAGE: 'stage' };
const WITH_SNAPSHOTS = ['PROTECTED', 'PROTECTED', 'PROTECTED', 'VIOLATIONS_DETECTED', 'ALL_VIOLATIONS_MUTED'];
const WITHOUT_SNAPSHOTS = ['NOT_BACKED_UP', 'NOT_BACKED_UP', 'VIOLATIONS_DETECTED', 'EXCLUDED_FROM_BACKUP'];
const RARE_STATUSES = ['GENERIC_BACKUPS', 'TERMINATED', 'INITIAL_CLASSIFICATION', 'UNSUPPORTED', 'ACTION_REQUIRED'];

/** Per type: the word in its names, its source size range in GiB, and whether it sits in a network. */
const TYPE_INFO: Record<ResourceType, readonly [word: string, minGiB: number, maxGiB: number, networked: boolean]> = {
  PA_VM: ['vm', 20, 1000, true],
  PA_RELATIONAL_DB: ['db', 5, 2000, true],
  PA_OBJECT_STORE: ['bucket', 1, 20000, false],
  PA_FILE_SYSTEM: ['fs', 10, 5000, true],
  PA_MANAGED_FILE_SYSTEM: ['mfs', 100, 5000, true],
  PA_K8S_NAMESPACE: ['ns', 1, 200, true],
  PA_KEYVALUE_DB: ['table', 1, 500, false],
  PB_VM: ['vm', 30, 1000, true],
  PB_FILE_SHARE: ['share', 10, 5000, false],
  PB_STORAGE_ACCOUNT: ['sa', 1, 20000, false],
  PB_DISK: ['disk', 32, 2048, false],
  PB_SQL_DATABASE: ['sqldb', 5, 1000, false],
  PB_SQL_MANAGED_INSTANCE: ['sqlmi', 32, 4000, true],
  PB_SQL_VM: ['sqlvm', 64, 2000, true],
  PB_MYSQL: ['mysql', 5, 1000, true],
  PB_POSTGRESQL: ['pg', 5, 1000, true],
  PB_DOC_DB_A: ['docs', 1, 500, false],
  PB_DOC_DB_B: ['mongo', 1, 500, true],
  PD_DOC_DB_CLUSTER: ['cluster', 2, 1000, true],
  PC_VM: ['vm', 10, 1000, true],
  PC_SQL_INSTANCE: ['sql', 10, 2000, true],
  PC_OBJECT_BUCKET: ['bucket', 1, 20000, false],
};

/** Where a PROVIDER_B resource lives inside its resource group. */
const PB_PATHS: Partial<Record<ResourceType, string>> = {
  PB_VM: 'PB.Compute/virtualMachines',
  PB_FILE_SHARE: 'PB.Storage/fileShares',
  PB_STORAGE_ACCOUNT: 'PB.Storage/storageAccounts',
  PB_DISK: 'PB.Compute/disks',
  PB_SQL_DATABASE: 'PB.Sql/databases',
  PB_SQL_MANAGED_INSTANCE: 'PB.Sql/managedInstances',
  PB_SQL_VM: 'PB.SqlVirtualMachine/sqlVirtualMachines',
  PB_MYSQL: 'PB.DBforMySQL/flexibleServers',
  PB_POSTGRESQL: 'PB.DBforPostgreSQL/flexibleServers',
  PB_DOC_DB_A: 'PB.DocumentDB/databaseAccounts',
  PB_DOC_DB_B: 'PB.DocumentDB/mongoClusters',
};

const hex = (random: Random, n: number) => Array.from({ length: n }, () => random.int(0, 15).toString(16)).join('');

/** `n` distinct items of a list. */
function sample<T>(random: Random, items: readonly T[], n: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) out.push(pool.splice(random.int(0, pool.length - 1), 1)[0] as T);
  return out;
}

export function buildResource(env: ResourceSeedEnv, spec: ResourceSpec): InventoryResource {
  const { random, anchor } = env;
  const { type, region, providerAccountId } = spec;
  const [word, minGiB, maxGiB, networked] = TYPE_INFO[type];
  const app = random.pick(APPS);
  const environment = random.chance(0.1) ? undefined : random.pick(ENVIRONMENTS);
  const envShort = environment ? (ENV_SHORT[environment] ?? 'dev') : 'dev';
  const name = `${app}-${word}-${envShort}-${String(spec.index).padStart(2, '0')}`;
  const tags = seedTags(random, type, app, envShort, name);
  const discovered = anchor - random.int(40, 400) * DAY_MS - random.int(0, 86_399) * 1000;
  const backupStatus = random.chance(0.12)
    ? random.pick(RARE_STATUSES)
    : random.pick(spec.hasSnapshots ? WITH_SNAPSHOTS : WITHOUT_SNAPSHOTS);
  const resource: InventoryResource = {
    id: random.uuid(),
    backupStatus,
    providerResourceId: providerResourceIdOf(random, spec, name, tags),
    resourceName: name,
    providerAccountId,
    snapshotStorage: {
      sizeBytes: 0,
      eonSnapshotCount: 0,
      nonEonSnapshotCount: random.chance(0.4) ? random.int(1, 12) : 0,
    },
    sourceStorage: { sizeBytes: random.int(minGiB, maxGiB) * GIB },
    tags,
    cloudProvider: spec.provider,
    resourceType: type,
    region,
    createdTime: new Date(discovered + random.int(1, 300) * 1000).toISOString(),
    discoveredTime: new Date(discovered).toISOString(),
  };
  const classifications = seedClassifications(random, app, environment);
  if (classifications) resource.classifications = classifications;
  if (random.chance(0.9)) resource.controlViolationCounts = violations(random, backupStatus);
  if (networked) {
    const key = `${providerAccountId}/${region}`;
    const network = env.networks.get(key) ?? {
      vpc: `vpc-${hex(random, 17)}`,
      subnets: Array.from({ length: 4 }, () => `subnet-${hex(random, 17)}`),
    };
    env.networks.set(key, network);
    resource.vpc = network.vpc;
    resource.subnets = sample(random, network.subnets, random.int(1, 2));
  }
  if (type === 'PA_VM')
    resource.resourceProperties = { vmA: { volumes: volumes(random, region, name, providerAccountId) } };
  if (type === 'PA_KEYVALUE_DB') resource.resourceProperties = { kvDbA: keyValueDb(random, spec.index) };
  return resource;
}

/**
 * Tags, some with empty values. `resourceGroupName`, `clusterName` and `globalClusterIdentifier` are set where the
 * concept applies: the resource list sorts on them.
 */
function seedTags(random: Random, type: ResourceType, app: string, envShort: string, name: string) {
  const tags: Record<string, string> = { app, team: random.pick(TEAMS) };
  if (random.chance(0.8)) tags.owner = random.pick(OWNERS);
  if (random.chance(0.6)) tags['cost-center'] = `cc-${random.int(100, 999)}`;
  if (envShort !== 'dev' || random.chance(0.5)) tags.env = envShort;
  if (random.chance(0.25)) tags.backup = '';
  if (random.chance(0.15)) tags['do-not-delete'] = '';
  if (random.chance(0.3)) tags.compliance = random.pick(['pci', 'hipaa', 'sox']);
  if (type.startsWith('PB_')) tags.resourceGroupName = `rg-${app}-${envShort}`;
  if (type === 'PA_K8S_NAMESPACE') tags.clusterName = `k8s-${envShort}-${random.int(1, 3)}`;
  if (type === 'PD_DOC_DB_CLUSTER') tags.clusterName = name;
  if (type === 'PB_DOC_DB_A' || type === 'PB_DOC_DB_B') tags.clusterName = `${app}-docs-${envShort}`;
  if (type === 'PA_RELATIONAL_DB' && random.chance(0.5)) tags.clusterName = `${app}-cluster-${envShort}`;
  if ((type === 'PA_RELATIONAL_DB' && random.chance(0.3)) || (type === 'PD_DOC_DB_CLUSTER' && random.chance(0.5))) {
    tags.globalClusterIdentifier = `global-${app}`;
  }
  return tags;
}

function providerResourceIdOf(random: Random, spec: ResourceSpec, name: string, tags: Record<string, string>): string {
  const { type, region, providerAccountId: account } = spec;
  const pbPath = PB_PATHS[type];
  if (pbPath) return `/subscriptions/${account}/resourceGroups/${tags.resourceGroupName}/providers/${pbPath}/${name}`;
  switch (type) {
    case 'PA_VM':
      return `i-${hex(random, 17)}`;
    case 'PA_RELATIONAL_DB':
      return `arn:pa:rds:${region}:${account}:db:${name}`;
    case 'PA_FILE_SYSTEM':
      return `fs-${hex(random, 17)}`;
    case 'PA_MANAGED_FILE_SYSTEM':
      return `mfs-${hex(random, 17)}`;
    case 'PA_K8S_NAMESPACE':
      return `arn:pa:k8s:${region}:${account}:cluster/${tags.clusterName}/namespace/${name}`;
    case 'PA_KEYVALUE_DB':
      return `arn:pa:kv:${region}:${account}:table/${name}`;
    case 'PC_VM':
      return `projects/${account}/zones/${region}-a/instances/${name}`;
    case 'PC_SQL_INSTANCE':
      return `projects/${account}/instances/${name}`;
    case 'PD_DOC_DB_CLUSTER':
      return `pd:${account}:cluster/${name}`;
    default:
      // Buckets are named globally by their name.
      return name;
  }
}

function seedClassifications(random: Random, app: string, environment: string | undefined) {
  if (random.chance(0.08)) return undefined;
  const apps = random.chance(0.15) ? [] : [{ name: app, paths: [`/srv/${app}`, `/var/lib/${app}`] }];
  if (random.chance(0.4)) {
    const other = random.pick(APPS.filter((a) => a !== app));
    apps.push(random.chance(0.5) ? { name: other, paths: [`/opt/${other}`] } : { name: other, paths: [] });
  }
  return {
    dataClassesDetails: {
      dataClasses: random.chance(0.2) ? [] : sample(random, DATA_CLASSES, random.int(1, 3)),
      isOverridden: random.chance(0.15),
    },
    ...(environment ? { environmentDetails: { environment, isOverridden: random.chance(0.2) } } : {}),
    appsDetails: { apps, isOverridden: random.chance(0.1) },
  };
}

function violations(random: Random, status: string) {
  if (status === 'VIOLATIONS_DETECTED') {
    return { high: random.int(0, 2), medium: random.int(1, 4), low: random.int(0, 5), muted: random.int(0, 2) };
  }
  if (status === 'ALL_VIOLATIONS_MUTED') return { high: 0, medium: 0, low: 0, muted: random.int(1, 4) };
  if (status === 'NOT_BACKED_UP') return { high: 1, medium: random.int(0, 2), low: random.int(0, 3), muted: 0 };
  return { high: 0, medium: 0, low: random.int(0, 1), muted: 0 };
}

function volumes(random: Random, region: string, name: string, account: string) {
  const zone = `${region}${random.pick(['a', 'b', 'c'])}`;
  return Array.from({ length: random.int(1, 4) }, (_, i) => {
    const type = random.pick(['gp3', 'gp3', 'gp2', 'io2', 'st1']);
    const encrypted = random.chance(0.7);
    const providerManaged = random.chance(0.6);
    return {
      providerVolumeId: `vol-${hex(random, 17)}`,
      path: `/dev/xvd${String.fromCharCode(97 + i)}`,
      region,
      tags: { Name: `${name}-vol${i}`, ...(random.chance(0.3) ? { snapshot: '' } : {}) },
      availabilityZone: zone,
      volumeSettings: {
        type,
        sizeBytes: random.int(8, 1024) * GIB,
        ...(type === 'gp3' || type === 'io2' ? { iops: random.pick([3000, 6000, 16000]) } : {}),
        ...(type === 'gp3' ? { throughput: random.pick([125, 250, 500]) } : {}),
      },
      ...(encrypted
        ? {
            encryptionKeyId: providerManaged ? `alias/pa/ebs` : `arn:pa:kms:${region}:${account}:key/${random.uuid()}`,
            isProviderAManagedKey: providerManaged,
          }
        : {}),
    };
  });
}

/** Indexes are stored always and returned only with `include=DYNAMODB_INDEXES`; most tables have both kinds. */
function keyValueDb(random: Random, index: number) {
  const provisioned = random.chance(0.5);
  const capacity = () => (provisioned ? random.pick([5, 10, 25, 100, 400]) : 0);
  const attrs = ['customerId', 'orderId', 'status', 'email', 'sku', 'region'];
  const projection = () => {
    const projectionType = random.pick(['ALL', 'KEYS_ONLY', 'INCLUDE'] as const);
    return projectionType === 'INCLUDE'
      ? { projectionType, nonKeyAttributes: sample(random, attrs, 2) }
      : { projectionType };
  };
  const keySchema = (hash: string) => [
    { name: hash, type: 'HASH' },
    { name: 'createdAt', type: 'RANGE' },
  ];
  const gsis = sample(random, attrs, random.int(1, 3)).map((attr) => ({
    indexName: `by-${attr}`,
    keySchema: keySchema(attr),
    projection: projection(),
    provisionedThroughput: provisioned
      ? { readCapacityUnits: capacity(), writeCapacityUnits: capacity() }
      : { readCapacityUnits: null, writeCapacityUnits: null },
    onDemandThroughput: provisioned
      ? { readCapacityUnits: null, writeCapacityUnits: null }
      : { readCapacityUnits: -1, writeCapacityUnits: -1 },
    warmThroughput: { readCapacityUnits: random.pick([12000, 24000]), writeCapacityUnits: random.pick([4000, 8000]) },
    indexSizeBytes: random.chance(0.9) ? random.int(1, 50_000) * 1024 * 1024 : null,
  }));
  const lsis = (index % 3 === 0 ? [] : sample(random, attrs, random.int(1, 2))).map((attr) => ({
    indexName: `local-${attr}`,
    keySchema: keySchema('pk').map((k, i) => (i === 1 ? { name: attr, type: 'RANGE' } : k)),
    projection: projection(),
    indexSizeBytes: random.int(1, 10_000) * 1024 * 1024,
  }));
  return {
    billingMode: provisioned ? 'PROVISIONED' : 'PAY_PER_REQUEST',
    readCapacityUnits: capacity(),
    writeCapacityUnits: capacity(),
    globalSecondaryIndexes: gsis,
    localSecondaryIndexes: lsis,
  };
}
