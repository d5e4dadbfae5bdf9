import {
  BackupServiceClient,
  closeHttpPools,
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
import { resolveServiceTarget } from './doctor-target';
import { CliError, NotConnectedError } from './errors';

/** Resource kinds a drill restores as files to a bucket without a check of its own (the restore alone decides). */
const DRILLABLE: readonly ResourceCategory[] = ['objectStore', 'virtualMachine', 'fileSystem'];
/** How many resources a discovered drill takes: enough to show a drill, few enough to run quickly. */
const MAX_RESOURCES = 3;
const DAY_SECONDS = 86_400;

/** The bucket a provider's restores go to, by destination concept (the runbook sends it in the service's dialect). */
const DESTINATION_OF: Partial<Record<ProviderConcept, (region: string) => Record<string, unknown>>> = {
  amazonWebServices: (region) => ({ amazonBucket: { bucketName: `drill-restores-${region}`, prefix: 'drill/' } }),
  googleCloud: (region) => ({ googleBucket: { bucketName: `drill-restores-${region}`, prefix: 'drill/' } }),
};

/**
 * A drill input filled from the configured service (read as the worker reads it, else the simulator a running worker
 * started): a connected restore account that allows restores, up to three backed-up resources of its provider in one
 * region, and a vault of that provider in that region. The RPO target leaves a day over the oldest newest snapshot.
 */
export async function discoverDrillInput(
  example: Readonly<Record<string, unknown>>,
  env: Record<string, string | undefined> = process.env,
  now = new Date(),
): Promise<Record<string, unknown>> {
  const { line, target } = await resolveServiceTarget(env, undefined, DEFAULT_TIMEOUT_MS);
  if (!target)
    throw new NotConnectedError(`--discover needs a service: ${line.detail}${line.fix ? ` (${line.fix})` : ''}`);
  const client = new BackupServiceClient({
    baseUrl: target.baseUrl,
    projectId: target.projectId,
    credentials: target.credentials,
    tokenEndpoint: target.tokenEndpoint,
    timeoutMs: target.timeoutMs,
    dialect: target.dialect,
  });
  try {
    const [accounts, resources, vaults] = await Promise.all([
      collect(client.listRestoreAccounts({}, { pageSize: 50 })),
      collect(client.listResources({}, { pageSize: 100 })),
      collect(client.listVaults({ pageSize: 50 })),
    ]);
    const picked = pick(accounts, resources, vaults);
    const oldest = Math.min(...picked.resources.map((r) => Date.parse(r.latestSnapshotTime ?? '')));
    const ageSeconds = Math.max(0, Math.ceil((now.getTime() - oldest) / 1000));
    return {
      ...example,
      name: 'discovered-drill',
      resources: { ids: picked.resources.map((r) => r.id) },
      vaultId: picked.vault.id,
      restoreAccountId: picked.account.id,
      destination: picked.destination,
      targets: { rpoSeconds: (Math.ceil(ageSeconds / DAY_SECONDS) + 1) * DAY_SECONDS, rtoSeconds: 3600 },
    };
  } catch (err) {
    if (err instanceof CliError) throw err;
    const message = `--discover could not list from ${target.baseUrl}: ${(err as Error).message}`;
    // A service that does not answer, or answers that it cannot now, is unreachable; a refusal is not.
    const unreachable = [NetworkError, ServerError, TooManyRequestsError].some((type) => err instanceof type);
    throw unreachable ? new NotConnectedError(message) : new CliError(message);
  } finally {
    await closeHttpPools();
  }
}

interface Picked {
  account: RestoreAccount;
  vault: Vault;
  resources: InventoryResource[];
  destination: Record<string, unknown>;
}

function pick(accounts: RestoreAccount[], resources: InventoryResource[], vaults: Vault[]): Picked {
  const best: Picked[] = [];
  for (const account of accounts.filter((a) => a.status === 'CONNECTED' && a.isRestoreAllowed)) {
    const provider = providerConceptOf(account.restoreAccountAttributes.cloudProvider);
    const destinationIn = provider && DESTINATION_OF[provider];
    if (!destinationIn) continue;
    for (const vault of vaults.filter((v) => providerConceptOf(v.vaultAttributes.cloudProvider) === provider)) {
      const inRegion = resources
        .filter(
          (r) =>
            r.region === vault.region &&
            r.latestSnapshotTime !== undefined &&
            providerOfResourceType(r.resourceType) === provider &&
            DRILLABLE.includes(resourceCategoryOf(r.resourceType)),
        )
        .sort((a, b) => a.id.localeCompare(b.id))
        .slice(0, MAX_RESOURCES);
      if (inRegion.length > 0)
        best.push({ account, vault, resources: inRegion, destination: destinationIn(vault.region) });
    }
  }
  const found = best.sort((a, b) => b.resources.length - a.resources.length)[0];
  if (!found) {
    throw new CliError(
      'the service has no connected restore account that allows restores with a vault and backed-up resources ' +
        `(${DRILLABLE.join(', ')}) of its provider in one region`,
    );
  }
  return found;
}
