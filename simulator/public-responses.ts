import type { SimState } from './model';
import { expressionOf } from './public-expression';
import { OUTPUT_SCHEME } from './routes/queries';
import {
  VALUE_KEYS,
  isObject,
  membersAt,
  publicMeteringDimension,
  publicRestoreType,
  type Json,
  type TokenPairs,
} from './public-tokens';

/**
 * Neutral answers of the routes written in the public dialect: its tokens and its shapes (docs/service-interface.md
 * §10, §11), from the state the answer was made of. Routes answer with state records themselves, so every change is
 * made on a copy.
 */

function publicValues(pairs: TokenPairs, value: unknown): unknown {
  if (typeof value === 'string') return pairs.toPublic.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => publicValues(pairs, v));
  // A filter or an access condition: its lists of values.
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, publicValues(pairs, v)]));
  return value;
}

/** A deep copy in public tokens: provider and resource-type values by their key, member names by their position. */
export function publicTokens(value: unknown, parentKey?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => publicTokens(v, parentKey));
  if (!isObject(value)) return value;
  // Tags are the customer's words.
  if (parentKey === 'tags') return { ...value };
  const members = membersAt(parentKey);
  const out: Json = {};
  for (const [key, member] of Object.entries(value)) {
    const values = VALUE_KEYS[key];
    out[members?.toPublic.get(key) ?? key] = values
      ? publicValues(values, member)
      : key === 'meteringDimension' && typeof member === 'string'
        ? publicMeteringDimension(member)
        : publicTokens(member, key);
  }
  return out;
}

/** Where an answer comes from: the route pattern (without the prefix), its parameters and the state. */
export interface AnswerSource {
  route: string;
  params: Readonly<Record<string, string | undefined>>;
  state: SimState;
}

const RESTORE_ROUTE = /\/snapshots\/:snapshotId\/restore-(?:bucket|files)$/;
const READ_REQUEST_ROUTE = '/v1/projects/:projectId/action-approvals/my-requests/:requestId';

/** A successful `/v1` answer in the public dialect. */
export function publicAnswer(body: unknown, from: AnswerSource): unknown {
  if (!isObject(body)) return body;
  // The public token body; the OAuth2 endpoint keeps the standard one.
  if (from.route === '/v1/token') return { accessToken: body.access_token, expirationSeconds: body.expires_in };
  const out = publicTokens(body) as Json;
  const vaultsOf = resourceVaults(from.state);
  each(out, 'resource', 'resources', (r) => resourceFields(r, from.state, vaultsOf));
  each(out, 'snapshot', 'snapshots', snapshotFields);
  each(out, 'job', 'jobs', (j) => jobFields(j, from.state));
  each(out, 'role', 'roles', roleFields);
  if (isObject(out.actionApprovalRequest)) requestNulls(out.actionApprovalRequest);
  // A restore that needed no approval: no action request, said as null (docs/service-interface.md §11).
  if (RESTORE_ROUTE.test(from.route) && 'jobId' in out) out.actionApprovalRequest ??= null;
  // Query results land in an S3 bucket, the one destination a public query names.
  if (Array.isArray(out.outputLocations)) {
    out.outputLocations = out.outputLocations.map((l: unknown) =>
      typeof l === 'string' && l.startsWith(OUTPUT_SCHEME) ? `s3://${l.slice(OUTPUT_SCHEME.length)}` : l,
    );
  }
  if (from.route === READ_REQUEST_ROUTE) {
    const reviews = from.state.actionRequests[from.params.requestId ?? '']?.reviews ?? [];
    return { mpaRequestDetail: { request: requestNulls(out), reviews: publicTokens(reviews) } };
  }
  return out;
}

/** Applies `shape` to the record under `one` and to each under `many`. */
function each(body: Json, one: string, many: string, shape: (record: Json) => void): void {
  if (isObject(body[one])) shape(body[one]);
  const list = body[many];
  if (Array.isArray(list)) for (const item of list) if (isObject(item)) shape(item);
}

/** The display name of the source account a resource was discovered in. */
function accountDisplayName(state: SimState, resourceId: unknown, providerAccountId: unknown): unknown {
  const record = typeof resourceId === 'string' ? state.resources[resourceId] : undefined;
  return (record && state.sourceAccounts[record.sourceAccountId]?.name) ?? providerAccountId ?? '';
}

/** Resource ID → the vaults its snapshots are kept in, computed once per answer. */
function resourceVaults(state: SimState): () => Map<string, Set<string>> {
  let index: Map<string, Set<string>> | undefined;
  return () => {
    if (index) return index;
    index = new Map();
    for (const s of Object.values(state.snapshots)) {
      if (!s.vaultId) continue;
      const set = index.get(s.resourceId) ?? new Set<string>();
      set.add(s.vaultId);
      index.set(s.resourceId, set);
    }
    return index;
  };
}

/**
 * A resource's fields that the public document requires (docs/service-interface.md §10): the simulator has no backup
 * policies and no threat scans, and the document names no member of `threatDetection`; `vaults` are those holding its
 * snapshots. Absent classification details are null (docs/service-interface.md §11).
 */
function resourceFields(r: Json, state: SimState, vaultsOf: () => Map<string, Set<string>>): void {
  r.accountDisplayName = accountDisplayName(state, r.id, r.providerAccountId);
  r.backupPolicies = [];
  r.threatDetection = {};
  r.vaults = [...(vaultsOf().get(String(r.id)) ?? [])];
  const classifications = isObject(r.classifications) ? r.classifications : {};
  r.classifications = { dataClassesDetails: null, environmentDetails: null, appsDetails: null, ...classifications };
}

/** The document requires a snapshot's `status` without listing its values; a snapshot here exists once complete. */
function snapshotFields(s: Json): void {
  s.status = 'COMPLETED';
}

/**
 * Nulls for what a job does not know yet (docs/service-interface.md §11): times until they are reached, its resource or
 * snapshot details when it has none. A restore job's `restoreType` names the resource's provider type and the restore
 * kind (docs/service-interface.md §10).
 */
function jobFields(job: Json, state: SimState): void {
  const exec = isObject(job.jobExecutionDetails) ? job.jobExecutionDetails : {};
  for (const key of ['startTime', 'endTime', 'durationSeconds'] as const) exec[key] ??= null;
  // A pending job has not been scheduled yet.
  exec.expectedStartTime = exec.status === 'JOB_PENDING' ? null : (exec.expectedStartTime ?? null);
  const details = job.resourceDetails;
  job.resourceDetails = isObject(details)
    ? { ...details, accountDisplayName: accountDisplayName(state, details.id, details.providerAccountId) }
    : null;
  job.snapshotDetails ??= null;
  if (typeof job.restoreType === 'string') {
    const record = state.restoreJobs[String(exec.jobId)];
    const resourceType = record && state.resources[record.resourceId]?.resource.resourceType;
    job.restoreType = publicRestoreType(resourceType, job.restoreType);
  }
}

/**
 * A role's access conditions: each expression as its tree, or null for one that was never a tree
 * (docs/service-interface.md §11).
 */
function roleFields(role: Json): void {
  if (!Array.isArray(role.accessConditions)) return;
  for (const condition of role.accessConditions) {
    if (!isObject(condition)) continue;
    const tree = typeof condition.expression === 'string' ? expressionOf(condition.expression) : null;
    condition.expression = tree === null ? null : publicTokens(tree);
  }
}

/** An action request's deadlines and resolution, null until they exist; a policy's approver, null when it has none. */
function requestNulls(request: Json): Json {
  for (const key of ['approvalExpirationTime', 'executionExpirationTime', 'resolvedTime'] as const) {
    request[key] ??= null;
  }
  if (Array.isArray(request.policyDetails)) {
    for (const policy of request.policyDetails) {
      if (!isObject(policy)) continue;
      policy.approverIdpId ??= null;
      policy.approverProviderGroupId ??= null;
    }
  }
  return request;
}
