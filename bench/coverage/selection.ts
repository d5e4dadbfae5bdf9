// The coverage benchmark's inventory and drill selection: an estate of four generated accounts (one per provider) on
// the seeded simulator, and a selection of the kind a team writes for a rotating drill. Pure, so a test can check that
// the selection takes what it says over a generated inventory.
import type { DrillSelection } from '../../runbooks/dr-drill/activities';
import { meetsConditions, selectIds, type SelectableResource } from '../../runbooks/dr-drill/selection';

/** One generated account per provider: the selection's conditions narrow to one of them. */
export const GENERATED_PROVIDERS = ['PROVIDER_A', 'PROVIDER_B', 'PROVIDER_C', 'PROVIDER_D'] as const;

/** Fixed seeds: every run generates the same estate, so the scope's size is the same at every run. */
export const GENERATION_SEED = 1_000;

/** How many resources each generated account holds so that, with the seeded ones, the inventory holds `total`. */
export function accountSizes(total: number, seeded: number): number[] {
  const generated = total - seeded;
  if (generated < GENERATED_PROVIDERS.length) throw new Error(`an inventory of ${total} leaves no room past ${seeded}`);
  const each = Math.floor(generated / GENERATED_PROVIDERS.length);
  return GENERATED_PROVIDERS.map((_, i) => each + (i === 0 ? generated % GENERATED_PROVIDERS.length : 0));
}

/** Resources always drilled whatever the conditions say: a handful, as teams pin them. */
const INCLUDED = 5;
/** One in this many of the resources the conditions take is excluded (being decommissioned, say). */
const EXCLUDE_ONE_IN = 100;

/**
 * Production databases, VMs, key-value tables and file systems of the main account in pa-west-2, of four of the five
 * teams, neither marked do-not-delete nor under PCI (drilled apart). Over the benchmark's estate of 50,000 it takes
 * about 1,150; with the include and exclude lists, every kind of member is there: tag tests equals, anyOf, exists and
 * not, types, accounts, regions, environments, include and exclude.
 */
export function conditionsOf(mainAccount: string): DrillSelection {
  return {
    tags: [
      { key: 'env', equals: 'prod' },
      { key: 'team', anyOf: ['platform', 'data', 'payments', 'sre'] },
      { key: 'do-not-delete', exists: false },
      { key: 'compliance', not: { equals: 'pci' } },
    ],
    resourceTypes: ['PA_RELATIONAL_DB', 'PA_VM', 'PA_KEYVALUE_DB', 'PA_FILE_SYSTEM'],
    accounts: [mainAccount],
    regions: ['pa-west-2'],
    environments: ['PROD'],
    maxResources: 5_000,
  };
}

/** The selection with its include and exclude lists, which name resources of the inventory as listed. */
export function drillSelection(inventory: readonly SelectableResource[], mainAccount: string): DrillSelection {
  const conditions = conditionsOf(mainAccount);
  const taken = selectIds(inventory, conditions);
  const include = inventory
    .filter((r) => r.resourceType === 'PA_RELATIONAL_DB' && !meetsConditions(r, conditions))
    .map((r) => r.id)
    .sort()
    .slice(0, INCLUDED);
  const exclude = taken.filter((_, i) => i % EXCLUDE_ONE_IN === EXCLUDE_ONE_IN - 1);
  return {
    ...conditions,
    ...(include.length > 0 ? { include } : {}),
    ...(exclude.length > 0 ? { exclude } : {}),
  };
}
