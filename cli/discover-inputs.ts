import { createRequire } from 'node:module';
import { Pool } from 'undici';
import {
  BackupServiceClient,
  collect,
  NetworkError,
  ServerError,
  TooManyRequestsError,
  type InventoryResource,
  type RestoreAccount,
  type Vault,
} from '../api';
import { providerConceptOf, providerOfResourceType, resourceCategoryOf, type ResourceCategory } from '../api/dialect';
import type { ProviderConcept } from '../api/dialect/tables';
import { DEFAULT_TIMEOUT_MS } from '../runtime/config';
import type { RunbookName } from '../runbooks/registry';
import { resolveServiceTarget } from './doctor-target';
import { CliError, NotConnectedError } from '../operator/errors';

// The simulator's control client is loaded only when a query is discovered, as the CLI loads the simulator.
const requireHere: (id: string) => unknown = createRequire(__filename);
type ControlClientModule = typeof import('../simulator/control-client');
type SimulatorDatabase = import('../simulator/control-client').SimulatorDatabase;

/** The runbooks whose example `--discover` fills with the service's IDs. */
export const DISCOVERABLE = ['drDrill', 'approvalGatedRestore', 'queryExport'] as const satisfies RunbookName[];
export type Discoverable = (typeof DISCOVERABLE)[number];

export const isDiscoverable = (runbook: RunbookName): runbook is Discoverable =>
  (DISCOVERABLE as readonly string[]).includes(runbook);

/** Resource kinds a drill restores as files to a bucket without a check of its own (the restore alone decides). */
const DRILLABLE: readonly ResourceCategory[] = ['objectStore', 'virtualMachine', 'fileSystem'];
/** How many resources a discovered drill takes: enough to show a drill, few enough to run quickly. */
const MAX_RESOURCES = 3;
const DAY_SECONDS = 86_400;

/** The bucket a provider's restores go to, by destination concept (the runbook sends it in the service's dialect). */
const DESTINATION_OF: Partial<Record<ProviderConcept, (bucket: { bucketName: string; prefix?: string }) => object>> = {
  amazonWebServices: (bucket) => ({ amazonBucket: bucket }),
  googleCloud: (bucket) => ({ googleBucket: bucket }),
};

/**
 * Inputs and clean-point do not take --service-url (doctor does): without a service configured, say what works for it.
 */
const NO_SERVICE_FIX =
  'set BACKUP_SERVICE_URL, BACKUP_PROJECT_ID, BACKUP_CLIENT_ID and BACKUP_CLIENT_SECRET (for `runbooks simulator`, ' +
  'the URL, project and client it prints, and its default secret), or start the worker (npm start), which runs a ' +
  'simulator the CLI finds';

interface Service {
  client: BackupServiceClient;
  baseUrl: string;
  accounts: RestoreAccount[];
  resources: InventoryResource[];
  vaults: Vault[];
}

/**
 * An example input filled from the configured service (read as the worker reads it, else the simulator a running
 * worker started), so that `runbooks start` finds everything it names.
 */
export async function discoverInput(
  runbook: Discoverable,
  example: Readonly<Record<string, unknown>>,
  env: Record<string, string | undefined> = process.env,
  now = new Date(),
): Promise<Record<string, unknown>> {
  const { client, baseUrl, close } = await configuredService('--discover', env);
  try {
    const [accounts, resources, vaults] = await Promise.all([
      collect(client.listRestoreAccounts({}, { pageSize: 50 })),
      collect(client.listResources({}, { pageSize: 100 })),
      collect(client.listVaults({ pageSize: 50 })),
    ]);
    const service: Service = { client, baseUrl, accounts, resources, vaults };
    if (runbook === 'drDrill') return drillInput(service, example, now);
    if (runbook === 'approvalGatedRestore') return await restoreInput(service, example);
    return await queryInput(service, example);
  } catch (err) {
    throw serviceCallError(err, `--discover could not list from ${baseUrl}`);
  } finally {
    await close();
  }
}

/**
 * A client of the configured service, read as the worker reads it, else the simulator a running worker started.
 * `who` (`--discover`) is named when there is none. Its connections are its own, for `close` to end without
 * closing those of other clients in the process (a worker's, in a test).
 */
export async function configuredService(
  who: string,
  env: Record<string, string | undefined> = process.env,
): Promise<{ client: BackupServiceClient; baseUrl: string; close: () => Promise<void> }> {
  const { line, target } = await resolveServiceTarget(env, undefined, DEFAULT_TIMEOUT_MS);
  if (!target) {
    const fix = line.fix && !line.fix.includes('--service-url') ? line.fix : NO_SERVICE_FIX;
    throw new NotConnectedError(`${who} needs a service: ${line.detail} (${fix})`);
  }
  const pool = new Pool(new URL(target.baseUrl).origin);
  const client = new BackupServiceClient({
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    credentials: target.credentials,
    tokenEndpoint: target.tokenEndpoint,
    timeoutMs: target.timeoutMs,
    dialect: target.dialect,
    dispatcher: pool,
  });
  return { client, baseUrl: target.baseUrl, close: () => pool.close() };
}

/** A failed call to the service as a CLI error: `doing` and the reason; a CliError passes as it is. */
export function serviceCallError(err: unknown, doing: string): CliError {
  if (err instanceof CliError) return err;
  const message = `${doing}: ${(err as Error).message}`;
  // A service that does not answer, or answers that it cannot now, is unreachable; a refusal is not.
  const unreachable = [NetworkError, ServerError, TooManyRequestsError].some((type) => err instanceof type);
  return unreachable ? new NotConnectedError(message) : new CliError(message);
}

/** Connected restore accounts that allow restores, with the provider a destination can be named for. */
function restoreAccounts(service: Service): { account: RestoreAccount; provider: ProviderConcept }[] {
  return service.accounts.flatMap((account) => {
    const provider = providerConceptOf(account.restoreAccountAttributes.cloudProvider);
    const usable = account.status === 'CONNECTED' && account.isRestoreAllowed && provider && DESTINATION_OF[provider];
    return usable ? [{ account, provider }] : [];
  });
}

/** Backed-up resources of one provider and kind, in a stable order. */
function backedUp(service: Service, provider: ProviderConcept, categories: readonly ResourceCategory[]) {
  return service.resources
    .filter(
      (r) =>
        r.latestSnapshotTime !== undefined &&
        providerOfResourceType(r.resourceType) === provider &&
        categories.includes(resourceCategoryOf(r.resourceType)),
    )
    .sort((a, b) => a.id.localeCompare(b.id));
}

async function newestSnapshot(service: Service, resourceId: string) {
  const page = await service.client.listSnapshotsPage(
    resourceId,
    { sorts: [{ field: 'pointInTime', order: 'DESC' }] },
    { pageSize: 1 },
  );
  return page.snapshots[0];
}

const destination = (provider: ProviderConcept, bucketName: string, prefix?: string) =>
  DESTINATION_OF[provider]?.({ bucketName, ...(prefix ? { prefix } : {}) }) ?? {};

/**
 * A drill of up to three backed-up resources of one provider in one region, with a vault of that provider there. The
 * RPO target leaves a day over the oldest newest snapshot.
 */
function drillInput(service: Service, example: Readonly<Record<string, unknown>>, now: Date): Record<string, unknown> {
  const best: { account: RestoreAccount; vault: Vault; resources: InventoryResource[]; provider: ProviderConcept }[] =
    [];
  for (const { account, provider } of restoreAccounts(service)) {
    for (const vault of service.vaults.filter((v) => providerConceptOf(v.vaultAttributes.cloudProvider) === provider)) {
      const inRegion = backedUp(service, provider, DRILLABLE)
        .filter((r) => r.region === vault.region)
        .slice(0, MAX_RESOURCES);
      if (inRegion.length > 0) best.push({ account, vault, resources: inRegion, provider });
    }
  }
  const found = best.sort((a, b) => b.resources.length - a.resources.length)[0];
  if (!found) {
    throw new CliError(
      'the service has no connected restore account that allows restores with a vault and backed-up resources ' +
        `(${DRILLABLE.join(', ')}) of its provider in one region`,
    );
  }
  const oldest = Math.min(...found.resources.map((r) => Date.parse(r.latestSnapshotTime ?? '')));
  const ageSeconds = Math.max(0, Math.ceil((now.getTime() - oldest) / 1000));
  return {
    ...example,
    name: 'discovered-drill',
    resources: { ids: found.resources.map((r) => r.id) },
    vaultId: found.vault.id,
    restoreAccountId: found.account.id,
    destination: destination(found.provider, `drill-restores-${found.vault.region}`, 'drill/'),
    targets: { rpoSeconds: (Math.ceil(ageSeconds / DAY_SECONDS) + 1) * DAY_SECONDS, rtoSeconds: 3600 },
  };
}

/** A bucket restore (what an approval policy protects; a files restore never is) of a backed-up object store. */
async function restoreInput(
  service: Service,
  example: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  for (const { account, provider } of restoreAccounts(service)) {
    for (const resource of backedUp(service, provider, ['objectStore'])) {
      const snapshot = await newestSnapshot(service, resource.id);
      if (!snapshot) continue;
      const { files: _files, ...rest } = example;
      return {
        ...rest,
        resourceId: resource.id,
        snapshotId: snapshot.id,
        kind: 'bucket',
        restoreAccountId: account.id,
        destination: destination(provider, `restores-${resource.region}`, 'restored/'),
        comment: `Restore ${resource.resourceName} from its newest snapshot`,
      };
    }
  }
  throw new CliError(
    'the service has no connected restore account that allows restores with a backed-up object store of its provider',
  );
}

/**
 * A query over the newest snapshot of a relational database, its results to an Amazon bucket (the only kind a query
 * writes to) in the snapshot vault's region. The service lists no databases: a simulator's control API names them,
 * else the example's database and query are kept for the user to change.
 */
async function queryInput(
  service: Service,
  example: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const databases = await simulatorDatabases(service.baseUrl);
  const account = restoreAccounts(service).find((a) => a.provider === 'amazonWebServices')?.account;
  const candidates = backedUp(service, 'amazonWebServices', ['relationalDatabase']).filter(
    (r) => databases.length === 0 || databases.some((d) => d.resourceId === r.id),
  );
  for (const resource of account ? candidates : []) {
    const snapshot = await newestSnapshot(service, resource.id);
    if (!snapshot?.vaultId) continue;
    const vault = await service.client.getVault(snapshot.vaultId);
    const database = databases.find((d) => d.resourceId === resource.id);
    const table = database?.tables.includes('orders') ? 'orders' : database?.tables[0];
    const query = example.query as Readonly<Record<string, unknown>>;
    return {
      ...example,
      snapshotId: snapshot.id,
      query: {
        ...query,
        ...(database && table ? { databaseName: database.databaseName, query: `SELECT * FROM ${table}` } : {}),
        restoreAccountId: account?.id,
        destination: destination('amazonWebServices', `query-results-${vault.region}`),
      },
      ...(table ? { fileName: `${table}.csv` } : {}),
    };
  }
  throw new CliError(
    'the service has no connected Amazon restore account that allows restores with a backed-up relational database ' +
      'whose snapshot names its vault',
  );
}

/** The databases a simulator holds (its control API); none from a real service, which has no such API. */
async function simulatorDatabases(baseUrl: string): Promise<SimulatorDatabase[]> {
  const { SimulatorControlClient } = requireHere('../simulator/control-client') as ControlClientModule;
  const state = await new SimulatorControlClient(baseUrl).state().catch(() => undefined);
  return state?.databases ?? [];
}
