// The tolerant reader (docs decision: decoders check what the runbooks use). Every optional or nullable field of
// every response decoder, found by walking the schemas themselves, is set to null in a valid body, one at a time:
// the body must still decode, unless the runbooks read that field, when the error must name it.
import { z } from 'zod';
import { decode } from '../../api/decode';
import * as s from '../../api/schemas';
import { issueField } from '../../api/validate';
import { pendingPublicJob, publicResource, publicRole, wrappedRequest } from './dialect-services';
import { bodies } from './helpers';

type Path = (string | number)[];
type Def = z.core.$ZodTypeDef & Record<string, unknown>;
const defOf = (schema: z.core.$ZodType) => schema._zod.def as Def;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the walk reads a decoder as, where its own schema cannot be walked (a transform of the whole body). */
const WALKED_AS = new Map<z.ZodType, z.ZodType>([[s.MpaRequestRead, z.union([s.MpaRequestDetail, s.MpaRequest])]]);

/** Every response decoder of the client, each with valid bodies the tests already use. */
const DECODERS: [string, z.ZodType, unknown[]][] = [
  ['ResourceBody', s.ResourceBody, [{ resource: bodies.resource() }, { resource: publicResource }]],
  [
    'ResourcePage',
    s.ResourcePage,
    [{ resources: [bodies.resource('a'), publicResource], totalCount: 2, nextToken: 'n' }],
  ],
  ['SnapshotBody', s.SnapshotBody, [{ snapshot: { ...bodies.snapshot(), onHold: true, holdDescription: 'x' } }]],
  ['SnapshotPage', s.SnapshotPage, [{ snapshots: [bodies.snapshot()], nextToken: null }]],
  ['VaultBody', s.VaultBody, [{ vault: bodies.vault() }]],
  ['VaultPage', s.VaultPage, [{ vaults: [bodies.vault()], totalCount: 1 }]],
  [
    'SourceAccountBody',
    s.SourceAccountBody,
    [{ sourceAccount: { ...bodies.sourceAccount(), providerAccountName: 'p' } }],
  ],
  ['SourceAccountPage', s.SourceAccountPage, [{ accounts: [bodies.sourceAccount()] }]],
  ['RestoreAccountBody', s.RestoreAccountBody, [{ restoreAccount: bodies.restoreAccount() }]],
  ['RestoreAccountPage', s.RestoreAccountPage, [{ accounts: [bodies.restoreAccount()] }]],
  ['RoleBody', s.RoleBody, [{ role: bodies.role() }, { role: publicRole }]],
  ['RolePage', s.RolePage, [{ roles: [bodies.role()] }]],
  [
    'PermissionList',
    s.PermissionList,
    [{ permissions: [{ ...bodies.permission(), description: 'd', allowConditions: true }] }],
  ],
  ['IdpPage', s.IdpPage, [{ idps: [bodies.idp()] }]],
  ['IdpGroupBody', s.IdpGroupBody, [{ group: { ...bodies.idpGroup(), displayName: 'g' } }]],
  ['IdpGroupPage', s.IdpGroupPage, [{ groups: [bodies.idpGroup()] }]],
  ['ApiCredentials', s.ApiCredentials, [bodies.apiCredentials()]],
  ['MpaRequestRead', s.MpaRequestRead, [bodies.mpaRequest(), wrappedRequest]],
  ['ActionRequestBody', s.ActionRequestBody, [{ actionApprovalRequest: bodies.mpaRequest() }]],
  ['ActionRequestAnswer', s.ActionRequestAnswer, [{ actionApprovalRequest: bodies.mpaRequest() }]],
  ['SubmitActionResult', s.SubmitActionResult, [{ actionApprovalRequest: bodies.mpaRequest() }]],
  ['ProtectedCallAnswer', s.ProtectedCallAnswer, [{ jobId: 'job-1' }, { actionApprovalRequest: bodies.mpaRequest() }]],
  ['JobStarted', s.JobStarted, [{ jobId: 'job-1' }]],
  ['BackupJobBody', s.BackupJobBody, [{ job: { ...bodies.backupJob(), resourceDetails: restoreJobResource() } }]],
  ['BackupJobPage', s.BackupJobPage, [{ jobs: [bodies.backupJob()], nextToken: null }]],
  ['RestoreJobBody', s.RestoreJobBody, [{ job: bodies.restoreJob() }, { job: pendingPublicJob }]],
  ['RestoreJobPage', s.RestoreJobPage, [{ jobs: [bodies.restoreJob()], totalCount: 1 }]],
  ['QueryStarted', s.QueryStarted, [{ queryId: 'q-1' }]],
  ['QueryStatusBody', s.QueryStatusBody, [{ status: 'SUCCEEDED', runningTimeMs: 5, outputLocations: ['s3://b/k'] }]],
  ['QueryResults', s.QueryResults, [bodies.queryResults('next')]],
  [
    'CostDataPage',
    s.CostDataPage,
    [{ records: [bodies.costRecord()], totalCount: 1, resourceCount: 1, nextToken: null }],
  ],
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
  ['MpaRequestRead', 'status', s.MpaRequestRead, bodies.mpaRequest()],
  ['MpaRequestRead', 'mpaRequestDetail.request.status', s.MpaRequestRead, wrappedRequest],
  ['MpaRequestRead', 'policyDetails.0.requiredApprovals', s.MpaRequestRead, bodies.mpaRequest()],
  ['ResourcePage', 'resources.0.id', s.ResourcePage, { resources: [bodies.resource()] }],
  ['ResourceBody', 'resource.resourceType', s.ResourceBody, { resource: bodies.resource() }],
  ['ResourceBody', 'resource.snapshotStorage', s.ResourceBody, { resource: bodies.resource() }],
  ['BackupJobBody', 'job.jobExecutionDetails.status', s.BackupJobBody, { job: bodies.backupJob() }],
  ['RestoreJobBody', 'job.jobExecutionDetails.jobId', s.RestoreJobBody, { job: bodies.restoreJob() }],
  ['SnapshotPage', 'snapshots.0.createdTime', s.SnapshotPage, { snapshots: [bodies.snapshot()] }],
  [
    'ActionRequestBody',
    'actionApprovalRequest.id',
    s.ActionRequestBody,
    { actionApprovalRequest: bodies.mpaRequest() },
  ],
  ['QueryStatusBody', 'status', s.QueryStatusBody, { status: 'RUNNING' }],
  ['CostDataPage', 'records.0.recordTimeFrame', s.CostDataPage, { records: [bodies.costRecord()] }],
];

test.each(READ)('%s: null in %s, which the runbooks read, is refused naming it', (_, field, schema, body) => {
  const decoded = decode(schema, withNull(body, pathsOf(field)));
  expect(decoded.success).toBe(false);
  const issue = decoded.error?.issues[0];
  expect(issue && issueField(issue, 'body')).toBe(field);
});

// The rule the decoders keep (docs/service-interface.md, the tolerant reader): a field nothing outside the client and
// the simulator reads is tolerant, whether the document marks it required or not; a field something reads stays
// checked. Every field of every decoder is found by walking the schemas with the bodies above: those not read must
// decode when null, absent or of an unknown shape; those read and required must refuse null, naming the field.

/**
 * The fields something reads, as paths within a record (an array's items are walked through). Which runbook or
 * command reads each is said where the record's decoder is declared (api/schemas/).
 */
/** An action request's fields the approval steps read (steps/approvals.ts `stateOf`, steps/jobs.ts). */
const REQUEST_READ = [
  'id',
  'status',
  'createdTime',
  'approvalExpirationTime',
  'executionExpirationTime',
  'resolvedTime',
  'policyDetails',
];

const READ_FIELDS: [z.ZodType, string[]][] = [
  // What the client returns: the records of each answer, lists and their page tokens, the IDs of started work.
  [s.ResourceBody, ['resource']],
  // The inventory's count: the posture report's progress.
  [s.ResourcePage, ['resources', 'nextToken', 'totalCount']],
  [s.SnapshotBody, ['snapshot']],
  [s.SnapshotPage, ['snapshots', 'nextToken']],
  [s.VaultBody, ['vault']],
  [s.VaultPage, ['vaults', 'nextToken']],
  [s.SourceAccountBody, ['sourceAccount']],
  [s.SourceAccountPage, ['accounts', 'nextToken']],
  [s.RestoreAccountBody, ['restoreAccount']],
  [s.RestoreAccountPage, ['accounts', 'nextToken']],
  [s.RoleBody, ['role']],
  [s.RolePage, ['roles', 'nextToken']],
  [s.PermissionList, ['permissions']],
  [s.IdpPage, ['idps', 'nextToken']],
  [s.IdpGroupBody, ['group']],
  [s.IdpGroupPage, ['groups', 'nextToken']],
  [s.ActionRequestBody, ['actionApprovalRequest']],
  [s.ActionRequestAnswer, ['actionApprovalRequest']],
  [s.SubmitActionResult, ['actionApprovalRequest']],
  [
    s.MpaRequestDetail,
    ['mpaRequestDetail', 'mpaRequestDetail.request', ...REQUEST_READ.map((p) => `mpaRequestDetail.request.${p}`)],
  ],
  [s.JobStarted, ['jobId']],
  [s.QueryStarted, ['queryId']],
  [s.BackupJobBody, ['job']],
  [s.BackupJobPage, ['jobs', 'nextToken']],
  [s.RestoreJobBody, ['job']],
  [s.RestoreJobPage, ['jobs', 'nextToken']],
  [s.CostDataPage, ['records', 'nextToken']],
  [s.ApiCredentials, ['clientId', 'clientSecret']],
  [s.Permission, ['permissionType']],
  [
    s.Role,
    [
      'id',
      'name',
      'isBuiltInRole',
      'permissionGrants',
      'permissionGrants.permission',
      'permissionGrants.accessConditionId',
      'accessConditions',
      'accessConditions.id',
      'accessConditions.effect',
      'accessConditions.expression',
    ],
  ],
  [s.IdentityProvider, ['id']],
  [s.IdpGroup, ['id']],
  [s.Vault, ['id', 'name', 'region', 'vaultAttributes', 'vaultAttributes.cloudProvider']],
  [s.SourceAccount, ['id', 'name', 'providerAccountId', 'status']],
  [
    s.RestoreAccount,
    ['id', 'name', 'status', 'isRestoreAllowed', 'restoreAccountAttributes', 'restoreAccountAttributes.cloudProvider'],
  ],
  [
    s.InventoryResource,
    [
      'id',
      'backupStatus',
      'providerResourceId',
      'resourceName',
      'providerAccountId',
      'snapshotStorage',
      'snapshotStorage.eonSnapshotCount',
      'cloudProvider',
      'resourceType',
      'region',
      'latestSnapshotTime',
      'classifications',
      'classifications.environmentDetails',
      'classifications.environmentDetails.environment',
    ],
  ],
  [s.Snapshot, ['id', 'createdTime', 'pointInTime', 'vaultId', 'expirationTime']],
  [s.MpaRequest, REQUEST_READ],
  [s.MpaPolicyDetail, ['requiredApprovals', 'currentApprovals', 'executionWindowHours']],
  [
    s.JobExecutionDetails,
    ['jobId', 'status', 'createdTime', 'startTime', 'endTime', 'durationSeconds', 'errorCode', 'statusMessage'],
  ],
  ...[s.BackupJob, s.RestoreJob].map((job): [z.ZodType, string[]] => [
    job,
    [
      'jobExecutionDetails',
      'resourceDetails',
      'resourceDetails.id',
      'resourceDetails.resourceType',
      'snapshotDetails',
      'snapshotDetails.id',
      'snapshotDetails.pointInTime',
      'vault',
      'vault.id',
    ],
  ]),
  [s.BackupJob, ['backupType']],
  [
    s.RestoreJob,
    ['restoreType', 'destinationDetails', 'destinationDetails.restoreAccountId', 'destinationDetails.restoreResult'],
  ],
  [s.QueryStatusBody, ['status', 'runningTimeMs', 'errorMessage', 'outputLocations']],
  [s.QueryResults, ['columns', 'records', 'nextToken']],
  [
    s.CostDataRecord,
    [
      'recordTimeFrame',
      'recordTimeFrame.startTime',
      'recordTimeFrame.endTime',
      'costs',
      'costs.meteringDimension',
      'costs.cost',
      'costs.cost.amount',
      'costs.cost.unit',
      'costs.usage',
      'costs.usage.amount',
      'costs.usage.unit',
      'resourceCount',
      'dimensions',
      'dimensions.cloudProvider',
      'dimensions.resourceType',
      'dimensions.resourceId',
      'dimensions.sourceAccountProviderId',
    ],
  ],
];

/** The object schema a field's schema holds, through its wrappers and arrays. */
function objectIn(schema: z.core.$ZodType): z.core.$ZodType {
  const def = defOf(schema);
  if (def.type === 'object') return schema;
  if (def.type === 'pipe') return objectIn(def.in as z.core.$ZodType);
  if (def.type === 'array') return objectIn(def.element as z.core.$ZodType);
  if (def.innerType) return objectIn(def.innerType as z.core.$ZodType);
  throw new Error(`no object in a ${def.type}`);
}

/**
 * Read fields by the object that holds them and their key (not by the field's schema: one schema, such as
 * `Timestamp`, may be the field of many records).
 */
const READ_KEYS = new Map<z.core.$ZodType, Set<string>>();

function markRead(record: z.core.$ZodType, path: string): void {
  const [first = '', ...rest] = path.split('.');
  const object = objectIn(record);
  const field = (defOf(object).shape as Record<string, z.core.$ZodType>)[first];
  if (!field) throw new Error(`no field ${path}`);
  if (rest.length > 0) return markRead(field, rest.join('.'));
  READ_KEYS.set(object, (READ_KEYS.get(object) ?? new Set()).add(first));
}

READ_FIELDS.forEach(([record, paths]) => paths.forEach((p) => markRead(record, p)));

/** `tolerant()`: kept when of the known shape, else dropped (`optional(catch(optional(schema)))`). */
const isTolerant = (field: z.core.$ZodType) =>
  defOf(field).type === 'optional' && defOf(defOf(field).innerType as z.core.$ZodType).type === 'catch';

/** The schema of a field's value, without the wrappers that let it be null or absent. */
function bare(field: z.core.$ZodType): z.core.$ZodType {
  const def = defOf(field);
  if (['optional', 'nullable', 'catch', 'default', 'readonly'].includes(def.type))
    return bare(def.innerType as z.core.$ZodType);
  if (def.type === 'pipe') return bare(def.in as z.core.$ZodType);
  return field;
}

/** A value of a shape the field does not know (a number where it wants an object, an object where a number…). */
function unknownShapeFor(field: z.core.$ZodType): unknown {
  const known = bare(field);
  return [42, 'an unknown shape', { an: 'unknown shape' }, [42]].find((v) => !z.safeParse(known, v).success);
}

interface Field {
  path: Path;
  field: z.core.$ZodType;
  read: boolean;
  /** Under a tolerant field, or in a union's alternative: null there may leave the body decodable, and that is fine. */
  sheltered: boolean;
}

/** Every field of `value` as `schema` reads it, present in the body or not. */
function fieldsOf(schema: z.core.$ZodType, value: unknown, path: Path, sheltered: boolean, out: Field[]): Field[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'catch':
    case 'default':
    case 'readonly':
      return fieldsOf(def.innerType as z.core.$ZodType, value, path, sheltered, out);
    case 'pipe':
      return fieldsOf(def.in as z.core.$ZodType, value, path, sheltered, out);
    case 'union': {
      const match = (def.options as z.core.$ZodType[]).find((o) => z.safeParse(o, value).success);
      return match ? fieldsOf(match, value, path, true, out) : out;
    }
    case 'array':
      if (Array.isArray(value))
        value.forEach((v, i) => fieldsOf(def.element as z.core.$ZodType, v, [...path, i], sheltered, out));
      return out;
    case 'object':
      if (!isObject(value)) return out;
      for (const [key, field] of Object.entries(def.shape as Record<string, z.core.$ZodType>)) {
        out.push({ path: [...path, key], field, read: READ_KEYS.get(schema)?.has(key) ?? false, sheltered });
        if (value[key] !== undefined && value[key] !== null)
          fieldsOf(field, value[key], [...path, key], sheltered || isTolerant(field), out);
      }
      return out;
    default:
      return out;
  }
}

function withValue(body: unknown, path: Path, value: unknown, absent = false): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (absent) delete at[last];
  else at[last] = value;
  return copy;
}

const FIELDS = DECODERS.flatMap(([name, schema, bodies]) =>
  bodies.flatMap((body, b) =>
    fieldsOf(WALKED_AS.get(schema) ?? schema, body, [], false, []).map((f) => ({ name, b, schema, body, ...f })),
  ),
);

const outcome = (schema: z.ZodType, body: unknown) => {
  const decoded = decode(schema, body);
  const issue = decoded.error?.issues[0];
  return issue ? `${issueField(issue, 'body')}: ${issue.message}` : 'decoded';
};

const UNREAD = FIELDS.filter((f) => !f.read).map((f): [string, number, string, z.ZodType, unknown, Field] => [
  f.name,
  f.b,
  f.path.join('.'),
  f.schema,
  f.body,
  f,
]);

test('the walk finds the fields nothing reads, those the document requires among them', () => {
  expect(UNREAD.length).toBeGreaterThan(150);
  expect(UNREAD.map(([name, , path]) => `${name}: ${path}`)).toEqual(
    expect.arrayContaining(['VaultBody: vault.isManagedByEon', 'ResourcePage: resources.0.tags']),
  );
});

test('no read field is tolerant', () => {
  expect(FIELDS.filter((f) => f.read && isTolerant(f.field)).map((f) => `${f.name}: ${f.path.join('.')}`)).toEqual([]);
});

test.each(UNREAD)(
  '%s (body %i): %s, which nothing reads, decodes null, absent or of an unknown shape',
  (_, __, ___, schema, body, field) => {
    const unknownShape = unknownShapeFor(field.field);
    expect({
      null: outcome(schema, withValue(body, field.path, null)),
      absent: outcome(schema, withValue(body, field.path, undefined, true)),
      unknownShape: unknownShape === undefined ? 'decoded' : outcome(schema, withValue(body, field.path, unknownShape)),
    }).toEqual({ null: 'decoded', absent: 'decoded', unknownShape: 'decoded' });
  },
);

/** Read and required, outside tolerant fields and unions: null there is refused, and the error names the field. */
const READ_REQUIRED = FIELDS.filter((f) => f.read && !f.sheltered && !acceptsNull(f.field)).map(
  (f): [string, number, string, z.ZodType, unknown] => [f.name, f.b, f.path.join('.'), f.schema, f.body],
);

test.each(READ_REQUIRED)(
  '%s (body %i): null in %s, which is read, is refused naming it',
  (_, __, path, schema, body) => {
    const decoded = decode(schema, withValue(body, path.split('.'), null));
    expect(decoded.success).toBe(false);
    const issue = decoded.error?.issues[0];
    expect(issue && issueField(issue, 'body')).toBe(path);
  },
);
