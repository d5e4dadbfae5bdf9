// The tolerant reader (docs decision: decoders check what the runbooks use). Every optional or nullable field of
// every response decoder, found by walking the schemas themselves, is set to null in a valid body, one at a time:
// the body must still decode, unless the runbooks read that field, when the error must name it.
import { z } from 'zod';
import { decode } from '../../api/decode';
import * as s from '../../api/schemas';
import { issueField } from '../../api/validate';
import { pendingPublicJob, publicResource, publicRole, wrappedRequest } from './dialect-services';
import {
  apiCredentials,
  backupJob,
  costRecord,
  idp,
  idpGroup,
  mpaRequest,
  permission,
  queryResults,
  resource,
  restoreAccount,
  restoreJob,
  role,
  snapshot,
  sourceAccount,
  vault,
} from './helpers';

type Path = (string | number)[];
type Def = z.core.$ZodTypeDef & Record<string, unknown>;
const defOf = (schema: z.core.$ZodType) => schema._zod.def as Def;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the walk reads a decoder as, where its own schema cannot be walked (a transform of the whole body). */
const WALKED_AS = new Map<z.ZodType, z.ZodType>([[s.MpaRequestRead, z.union([s.MpaRequestDetail, s.MpaRequest])]]);

/** Every response decoder of the client, each with valid bodies the tests already use. */
const DECODERS: [string, z.ZodType, unknown[]][] = [
  ['ResourceBody', s.ResourceBody, [{ resource: resource() }, { resource: publicResource }]],
  ['ResourcePage', s.ResourcePage, [{ resources: [resource('a'), publicResource], totalCount: 2, nextToken: 'n' }]],
  ['SnapshotBody', s.SnapshotBody, [{ snapshot: { ...snapshot(), onHold: true, holdDescription: 'x' } }]],
  ['SnapshotPage', s.SnapshotPage, [{ snapshots: [snapshot()], nextToken: null }]],
  ['VaultBody', s.VaultBody, [{ vault: vault() }]],
  ['VaultPage', s.VaultPage, [{ vaults: [vault()], totalCount: 1 }]],
  ['SourceAccountBody', s.SourceAccountBody, [{ sourceAccount: { ...sourceAccount(), providerAccountName: 'p' } }]],
  ['SourceAccountPage', s.SourceAccountPage, [{ accounts: [sourceAccount()] }]],
  ['RestoreAccountBody', s.RestoreAccountBody, [{ restoreAccount: restoreAccount() }]],
  ['RestoreAccountPage', s.RestoreAccountPage, [{ accounts: [restoreAccount()] }]],
  ['RoleBody', s.RoleBody, [{ role: role() }, { role: publicRole }]],
  ['RolePage', s.RolePage, [{ roles: [role()] }]],
  [
    'PermissionList',
    s.PermissionList,
    [{ permissions: [{ ...permission(), description: 'd', allowConditions: true }] }],
  ],
  ['IdpPage', s.IdpPage, [{ idps: [idp()] }]],
  ['IdpGroupBody', s.IdpGroupBody, [{ group: { ...idpGroup(), displayName: 'g' } }]],
  ['IdpGroupPage', s.IdpGroupPage, [{ groups: [idpGroup()] }]],
  ['ApiCredentials', s.ApiCredentials, [apiCredentials()]],
  ['MpaRequestRead', s.MpaRequestRead, [mpaRequest(), wrappedRequest]],
  ['ActionRequestBody', s.ActionRequestBody, [{ actionApprovalRequest: mpaRequest() }]],
  ['ActionRequestAnswer', s.ActionRequestAnswer, [{ actionApprovalRequest: mpaRequest() }]],
  ['SubmitActionResult', s.SubmitActionResult, [{ actionApprovalRequest: mpaRequest() }]],
  ['ProtectedCallAnswer', s.ProtectedCallAnswer, [{ jobId: 'job-1' }, { actionApprovalRequest: mpaRequest() }]],
  ['JobStarted', s.JobStarted, [{ jobId: 'job-1' }]],
  ['BackupJobBody', s.BackupJobBody, [{ job: { ...backupJob(), resourceDetails: restoreJobResource() } }]],
  ['BackupJobPage', s.BackupJobPage, [{ jobs: [backupJob()], nextToken: null }]],
  ['RestoreJobBody', s.RestoreJobBody, [{ job: restoreJob() }, { job: pendingPublicJob }]],
  ['RestoreJobPage', s.RestoreJobPage, [{ jobs: [restoreJob()], totalCount: 1 }]],
  ['QueryStarted', s.QueryStarted, [{ queryId: 'q-1' }]],
  ['QueryStatusBody', s.QueryStatusBody, [{ status: 'SUCCEEDED', runningTimeMs: 5, outputLocations: ['s3://b/k'] }]],
  ['QueryResults', s.QueryResults, [queryResults('next')]],
  ['CostDataPage', s.CostDataPage, [{ records: [costRecord()], totalCount: 1, resourceCount: 1, nextToken: null }]],
];

/** Fields the document lets be null that the schemas may not show as optional (docs/service-interface.md §11). */
const DOCUMENT_NULLABLE: Record<string, string[]> = {
  MpaRequestRead: ['mpaRequestDetail', 'mpaRequestDetail.request'],
  // x-nullable: the whole answer may be null.
  ProtectedCallAnswer: [''],
};

/**
 * Null there is refused, naming the field: the runbooks read it (steps/approvals.ts and steps/jobs.ts read the
 * request a read returns; there is nothing to read in its place).
 */
const NEEDED: Record<string, string[]> = {
  MpaRequestRead: ['mpaRequestDetail', 'mpaRequestDetail.request'],
};

/** Fields whose null or absence the schema allows, in whatever wrapper (optional, nullable, tolerant, null-as-absent). */
function acceptsNull(schema: z.core.$ZodType): boolean {
  const def = defOf(schema);
  if (['optional', 'nullable', 'catch', 'default'].includes(def.type)) return true;
  if (def.type === 'pipe') return acceptsNull(def.in as z.core.$ZodType);
  return false;
}

/** Paths of every field of `value` (as `schema` reads it) that may be null. */
function nullablePaths(schema: z.core.$ZodType, value: unknown, path: Path, out: Path[]): Path[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'catch':
    case 'default':
    case 'readonly':
      return nullablePaths(def.innerType as z.core.$ZodType, value, path, out);
    case 'pipe':
      return nullablePaths(def.in as z.core.$ZodType, value, path, out);
    case 'union': {
      // The alternative this body is read as.
      const options = def.options as z.core.$ZodType[];
      const match = options.find((o) => z.safeParse(o, value).success);
      return match ? nullablePaths(match, value, path, out) : out;
    }
    case 'array':
      if (Array.isArray(value))
        value.forEach((v, i) => nullablePaths(def.element as z.core.$ZodType, v, [...path, i], out));
      return out;
    case 'record':
      if (isObject(value))
        for (const [k, v] of Object.entries(value))
          nullablePaths(def.valueType as z.core.$ZodType, v, [...path, k], out);
      return out;
    case 'object':
      if (!isObject(value)) return out;
      for (const [key, field] of Object.entries(def.shape as Record<string, z.core.$ZodType>)) {
        if (acceptsNull(field)) out.push([...path, key]);
        if (value[key] !== undefined && value[key] !== null) nullablePaths(field, value[key], [...path, key], out);
      }
      return out;
    default:
      return out;
  }
}

function withNull(body: unknown, path: Path): unknown {
  if (path.length === 0) return null;
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1] as string | number] = null;
  return copy;
}

const pathsOf = (text: string): Path => (text === '' ? [] : text.split('.'));

/** One case per decoder, body and field: [decoder, body index, field path]. */
const CASES = DECODERS.flatMap(([name, schema, bodies]) =>
  bodies.flatMap((body, b) => {
    const paths = [
      ...nullablePaths(WALKED_AS.get(schema) ?? schema, body, [], []),
      ...(DOCUMENT_NULLABLE[name] ?? []).map(pathsOf),
    ];
    const unique = [...new Map(paths.map((p) => [p.join('.'), p])).values()];
    return unique
      .filter((p) => !(NEEDED[name] ?? []).includes(p.join('.')))
      .map((p): [string, number, string, z.ZodType, unknown] => [
        name,
        b,
        p.join('.') || '(whole answer)',
        schema,
        withNull(body, p),
      ]);
  }),
);

function restoreJobResource() {
  return {
    id: 'res-1',
    providerResourceId: 'p',
    resourceName: 'r',
    resourceType: 'PA_VM',
    providerAccountId: '1',
    cloudProvider: 'PROVIDER_A',
    region: 'region-1',
    sourceStorageSizeBytes: 10,
  };
}

test('every example body decodes as it is', () => {
  for (const [name, schema, bodies] of DECODERS)
    for (const body of bodies) expect([name, decode(schema, body).success]).toEqual([name, true]);
});

test('the walk finds the optional and nullable fields of every decoder', () => {
  expect(CASES.length).toBeGreaterThan(150);
});

test.each(CASES)('%s (body %i): null in %s still decodes', (_, __, field, schema, body) => {
  const decoded = decode(schema, body);
  const issue = decoded.error?.issues[0];
  expect(issue ? `${issueField(issue, 'body')}: ${issue.message}` : 'decoded').toBe('decoded');
});

/** Fields the runbooks read, in bodies the tests already use: null there is refused, and the error names the field. */
const READ: [string, string, z.ZodType, unknown][] = [
  ...(NEEDED.MpaRequestRead ?? []).map((f): [string, string, z.ZodType, unknown] => [
    'MpaRequestRead',
    f,
    s.MpaRequestRead,
    wrappedRequest,
  ]),
  ['MpaRequestRead', 'status', s.MpaRequestRead, mpaRequest()],
  ['MpaRequestRead', 'mpaRequestDetail.request.status', s.MpaRequestRead, wrappedRequest],
  ['MpaRequestRead', 'policyDetails.0.requiredApprovals', s.MpaRequestRead, mpaRequest()],
  ['ResourcePage', 'resources.0.id', s.ResourcePage, { resources: [resource()] }],
  ['ResourceBody', 'resource.resourceType', s.ResourceBody, { resource: resource() }],
  ['ResourceBody', 'resource.snapshotStorage', s.ResourceBody, { resource: resource() }],
  ['BackupJobBody', 'job.jobExecutionDetails.status', s.BackupJobBody, { job: backupJob() }],
  ['RestoreJobBody', 'job.jobExecutionDetails.jobId', s.RestoreJobBody, { job: restoreJob() }],
  ['SnapshotPage', 'snapshots.0.createdTime', s.SnapshotPage, { snapshots: [snapshot()] }],
  ['ActionRequestBody', 'actionApprovalRequest.id', s.ActionRequestBody, { actionApprovalRequest: mpaRequest() }],
  ['QueryStatusBody', 'status', s.QueryStatusBody, { status: 'RUNNING' }],
  ['CostDataPage', 'records.0.recordTimeFrame', s.CostDataPage, { records: [costRecord()] }],
];

test.each(READ)('%s: null in %s, which the runbooks read, is refused naming it', (_, field, schema, body) => {
  const decoded = decode(schema, withNull(body, pathsOf(field)));
  expect(decoded.success).toBe(false);
  const issue = decoded.error?.issues[0];
  expect(issue && issueField(issue, 'body')).toBe(field);
});
