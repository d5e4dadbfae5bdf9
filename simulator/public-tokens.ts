import {
  DESTINATION_KINDS,
  DESTINATIONS,
  PROVIDER_CONCEPTS,
  PROVIDERS,
  RESOURCE_TYPE_ROWS,
  restoreKindOf,
  restoreTypeFor,
} from '../api/dialect';

/**
 * The wire tokens the simulator translates at its public-dialect edge, read from api/dialect's tables: each kind of
 * token as a pair of maps, neutral → public and public → neutral. Pure data and functions.
 */

export interface TokenPairs {
  /** What the tokens name, for messages: "provider", "resource type", … */
  noun: string;
  toPublic: ReadonlyMap<string, string>;
  toNeutral: ReadonlyMap<string, string>;
  /** Tokens only the public dialect has (no neutral counterpart). */
  publicOnly: ReadonlySet<string>;
}

function pairs(noun: string, rows: readonly (readonly [string | undefined, string | undefined])[]): TokenPairs {
  const toPublic = new Map<string, string>();
  const toNeutral = new Map<string, string>();
  const publicOnly = new Set<string>();
  for (const [neutral, pub] of rows) {
    if (neutral !== undefined && pub !== undefined) {
      toPublic.set(neutral, pub);
      toNeutral.set(pub, neutral);
    } else if (pub !== undefined) {
      publicOnly.add(pub);
    }
  }
  return { noun, toPublic, toNeutral, publicOnly };
}

/** `cloudProvider` values. */
export const PROVIDER_VALUES = pairs(
  'provider',
  PROVIDER_CONCEPTS.map((p) => [PROVIDERS[p].value.neutral, PROVIDERS[p].value.public] as const),
);

/** Members naming a provider in attribute objects (source accounts, vaults). */
export const PROVIDER_MEMBERS = pairs(
  'provider member',
  PROVIDER_CONCEPTS.map((p) => [PROVIDERS[p].member.neutral, PROVIDERS[p].member.public] as const),
);

/** Members of a restore or query destination. */
export const DESTINATION_MEMBERS = pairs(
  'destination member',
  DESTINATION_KINDS.map((k) => [DESTINATIONS[k].neutral, DESTINATIONS[k].public] as const),
);

export const RESOURCE_TYPES = pairs(
  'resource type',
  RESOURCE_TYPE_ROWS.map((r) => [r.neutral, r.public] as const),
);

/** Whether a token is the neutral dialect's own, spelt differently in the public one (`storageAccount` is not). */
export function isNeutralOnly(pairs: TokenPairs, token: string): boolean {
  const pub = pairs.toPublic.get(token);
  return pub !== undefined && pub !== token;
}

/** Keys whose values are tokens: a value, a filter of values, or an access condition's values. */
export const VALUE_KEYS: Readonly<Record<string, TokenPairs>> = {
  cloudProvider: PROVIDER_VALUES,
  resourceType: RESOURCE_TYPES,
};

/** The members an object holds by its key: a destination's kinds, or an attribute object's providers. */
export function membersAt(parentKey: string | undefined): TokenPairs | undefined {
  if (parentKey === 'destination') return DESTINATION_MEMBERS;
  return parentKey?.endsWith('Attributes') ? PROVIDER_MEMBERS : undefined;
}

export { isRecord as isObject, type Json } from '../api/dialect/requests';

/** The refusal of a neutral token in a public request: it names the token and the public dialect's word for it. */
export function neutralTokenMessage(where: string, pairs: TokenPairs, token: string): string {
  return (
    `invalid ${where}: ${token} is the neutral dialect's ${pairs.noun}; ` +
    `the public dialect calls it ${pairs.toPublic.get(token) ?? '(nothing)'}`
  );
}

/** Every neutral token the public dialect spells otherwise, longest first, as one whole-word pattern. */
const NEUTRAL_WORDS = new RegExp(
  `\\b(?:${[PROVIDER_VALUES, PROVIDER_MEMBERS, DESTINATION_MEMBERS, RESOURCE_TYPES]
    .flatMap((p) => [...p.toPublic.keys()].filter((t) => isNeutralOnly(p, t)))
    .sort((a, b) => b.length - a.length)
    .join('|')})\\b`,
  'g',
);

const publicWordOf = (token: string): string =>
  [PROVIDER_VALUES, PROVIDER_MEMBERS, DESTINATION_MEMBERS, RESOURCE_TYPES]
    .map((p) => p.toPublic.get(token))
    .find((t) => t !== undefined) ?? token;

/**
 * A route's error text in the public dialect's words: the routes check neutral requests, so their messages name
 * neutral fields and values (`body.destination.bucketA`, `expected one of "PROVIDER_A"|…`).
 */
export function publicText(text: string): string {
  return text.replace(NEUTRAL_WORDS, publicWordOf);
}

/**
 * The `restoreType` of a restore job in the public dialect. §10 lists only some of about 60 values; for a resource type
 * the table lists no restore of this kind for, the simulator answers with a stand-in of its own that names the
 * provider's type (`<TYPE>_RESTORE`, `<TYPE>_FILE_RESTORE`) and that no client table knows, so that a client which
 * trusts only the listed values is caught.
 */
export function publicRestoreType(neutralResourceType: string | undefined, neutralRestoreType: string): string {
  const kind = restoreKindOf(neutralRestoreType);
  const publicType = neutralResourceType === undefined ? undefined : RESOURCE_TYPES.toPublic.get(neutralResourceType);
  if (kind === undefined || publicType === undefined) return 'RESTORE_JOB_TYPE_UNSPECIFIED';
  return restoreTypeFor(publicType, kind) ?? `${publicType}${kind === 'bucket' ? '_RESTORE' : '_FILE_RESTORE'}`;
}

/**
 * Metering dimensions by the public document's names: the neutral base of each (`PA_VM` in
 * `PA_VM_TO_PB_VAULT_METERING_DIMENSION`) and the vault's provider are renamed; a dimension that names no provider
 * (`DATA_TRANSFER_METERING_DIMENSION`) is the same in both.
 */
const METERING_BASES: Readonly<Record<string, string>> = {
  PA_VM: 'AWS_EC2',
  PA_VM_NATIVE: 'AWS_EC2_NATIVE',
  PA_RELATIONAL_DB: 'AWS_RDS',
  PA_OBJECT_STORE: 'AWS_S3',
  PA_KEYVALUE_DB: 'AWS_DYNAMO_DB',
  PA_K8S: 'AWS_EKS',
  PB_VM: 'AZURE_VIRTUAL_MACHINE',
  PB_STORAGE_ACCOUNT: 'AZURE_STORAGE_ACCOUNT',
  PB_SQL_VM: 'AZURE_SQL_VIRTUAL_MACHINE',
  PB_SQL_DATABASE: 'AZURE_SQL_DATABASE',
  PB_POSTGRESQL: 'AZURE_POSTGRESQL',
  PC_VM: 'GCP_VM_INSTANCE',
  PC_OBJECT_STORE: 'GCP_CLOUD_STORAGE',
  PC_SQL_POSTGRES: 'GCP_CLOUD_SQL_POSTGRES_SQL',
  PC_SQL_MYSQL: 'GCP_CLOUD_SQL_MYSQL',
  PC_SQL_SERVER: 'GCP_CLOUD_SQL_SQL_SERVER',
  PC_ANALYTICS_WAREHOUSE: 'GCP_BIG_QUERY',
  PD_CLUSTER: 'MONGO_ATLAS_CLUSTER',
};
const VAULT_PROVIDERS: Readonly<Record<string, string>> = { PA: 'AWS', PB: 'AZURE', PC: 'GCP' };

export function publicMeteringDimension(dimension: string): string {
  const match = /^(.+?)(?:_TO_(P[A-C])_VAULT)?_METERING_DIMENSION$/.exec(dimension);
  const base = match?.[1] === undefined ? undefined : METERING_BASES[match[1]];
  if (base === undefined) return dimension;
  const vault = match?.[2] === undefined ? '' : `_TO_${VAULT_PROVIDERS[match[2]]}_VAULT`;
  return `${base}${vault}_METERING_DIMENSION`;
}
