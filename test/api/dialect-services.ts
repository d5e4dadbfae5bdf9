// Local services answering in one dialect: as the real service's public document does (docs/service-interface.md
// §9–§11), with its token body, its tokens and the nulls and structured expressions it allows; or in the neutral
// vocabulary. Both record every request, like the other stub servers.
import { randomBytes } from 'node:crypto';
import { DESTINATIONS, PROVIDERS, RESOURCE_TYPE_ROWS, type Dialect } from '../../api/dialect';
import {
  NOW,
  PROJECT_ID,
  RecordingServer,
  resource,
  restoreAccount,
  role,
  sourceAccount,
  vault,
  type JsonReply,
  type RecordedRequest,
} from './helpers';

export const P = `/api/v1/projects/${PROJECT_ID}`;

/** A token answer in the public dialect's shape. */
export function publicToken(server: RecordingServer): JsonReply {
  const token = `pub_${server.issuedTokens.length + 1}_${randomBytes(12).toString('hex')}`;
  server.issuedTokens.push(token);
  return { status: 200, json: { accessToken: token, expirationSeconds: 43_200 } };
}

export const publicSourceAccount = {
  id: 'acc-1',
  providerAccountId: '123456789012',
  name: 'Production',
  status: 'CONNECTED',
  sourceAccountAttributes: { cloudProvider: 'AWS', aws: { roleArn: 'arn:aws:iam::123456789012:role/eon' } },
};

export const publicRestoreAccount = {
  id: 'ra-1',
  providerAccountId: '210987654321',
  name: 'Restores',
  status: 'CONNECTED',
  restoreAccountAttributes: { cloudProvider: 'AWS' },
  isRestoreAllowed: true,
};

/** A resource with the required fields the neutral vocabulary does not show, and nulls where the document allows. */
export const publicResource = {
  id: 'res-1',
  backupStatus: 'PROTECTED',
  providerResourceId: 'arn:aws:rds:us-east-1:123456789012:db:orders',
  resourceName: 'orders',
  providerAccountId: '123456789012',
  accountDisplayName: 'Production',
  snapshotStorage: { sizeBytes: 2048 },
  sourceStorage: { sizeBytes: 1024 },
  tags: {},
  cloudProvider: 'AWS',
  resourceType: 'AWS_RDS',
  region: 'us-east-1',
  backupPolicies: [],
  threatDetection: {},
  vaults: [],
  classifications: { dataClassesDetails: null, environmentDetails: null, appsDetails: null },
};

/** A restore job that has not started: its times, duration and details are null. */
export const pendingPublicJob = {
  jobExecutionDetails: {
    jobId: 'job-9',
    status: 'JOB_PENDING',
    createdTime: NOW,
    expectedStartTime: null,
    startTime: null,
    endTime: null,
    durationSeconds: null,
  },
  restoreType: 'AWS_S3_BUCKET_RESTORE',
  destinationDetails: {
    restoreAccountId: 'ra-1',
    providerAccountId: '210987654321',
    cloudProvider: 'AWS',
    region: 'us-east-1',
  },
  resourceDetails: null,
  snapshotDetails: null,
};

export const structuredExpression = {
  group: {
    operator: 'AND',
    operands: [
      { environment: { operator: 'IN', environments: ['PROD'] } },
      { resourceType: { operator: 'IN', resourceTypes: ['AWS_RDS'] } },
    ],
  },
};

export const publicRole = {
  id: 'role-1',
  name: 'Restorers',
  isBuiltInRole: false,
  permissionGrants: [{ permission: 'resources.restore', accessConditionId: 'ac-1' }],
  accessConditions: [
    { id: 'ac-1', effect: 'INCLUSIVE', expression: structuredExpression },
    { id: 'ac-2', effect: 'EXCLUSIVE', expression: null },
  ],
};

export const mpaRequest = {
  id: 'req-1',
  operation: 'MPA_OPERATION_RESTORE_RESOURCE',
  requesterEmail: 'sre@example.com',
  status: 'PENDING_APPROVAL',
  createdTime: NOW,
};

const policyDetail = { requiredApprovals: 2, currentApprovals: 1, executionWindowHours: 24, approvalWindowHours: 48 };

/** The wrapped read, with a null review and a null policy detail. */
export const wrappedRequest = {
  mpaRequestDetail: {
    request: { ...mpaRequest, policyDetails: [policyDetail, null] },
    reviews: [null, { id: 'rev-1', reviewerEmail: 'boss@example.com', decision: 'APPROVED', reviewedTime: NOW }],
  },
};

/** Answers every call the way the public document shapes it. */
export function publicHandler(req: RecordedRequest): JsonReply {
  const route = `${req.method} ${req.path.replace(P, '{p}').replace('/api', '')}`;
  if (route === 'POST {p}/source-accounts/list') return { status: 200, json: { accounts: [publicSourceAccount] } };
  if (route === 'POST {p}/restore-accounts/list') return { status: 200, json: { accounts: [publicRestoreAccount] } };
  if (route === 'POST {p}/source-accounts' || route.startsWith('PATCH {p}/source-accounts/')) {
    return { status: 200, json: { sourceAccount: publicSourceAccount } };
  }
  if (route === 'POST {p}/resources') return { status: 200, json: { resources: [publicResource], nextToken: null } };
  if (route.startsWith('GET {p}/resources/')) return { status: 200, json: { resource: publicResource } };
  if (route === 'POST {p}/vaults') {
    const vault = { id: 'v-1', vaultAccountId: 'va', providerAccountId: '1', name: 'v', region: 'us-east-1' };
    return {
      status: 201,
      json: { vault: { ...vault, isManagedByEon: true, vaultAttributes: { cloudProvider: 'AWS' } } },
    };
  }
  if (route.endsWith('/restore-bucket') || route.endsWith('/restore-files')) {
    return { status: 202, json: { jobId: 'job-9', actionApprovalRequest: null } };
  }
  if (route.endsWith('/databases/query')) return { status: 202, json: { queryId: 'q-1:q-2' } };
  if (route === 'POST /v1/cost-data') return { status: 200, json: { records: [], nextToken: null } };
  if (route === 'POST /v1/roles') return { status: 201, json: { role: publicRole } };
  if (route.startsWith('PUT /v1/roles/') || route.startsWith('GET /v1/roles/')) {
    return { status: 200, json: { role: publicRole } };
  }
  if (route.startsWith('GET {p}/restore-jobs/')) return { status: 200, json: { job: pendingPublicJob } };
  if (route === 'POST {p}/restore-jobs') return { status: 200, json: { jobs: [pendingPublicJob] } };
  if (route.endsWith('/submit') || route.endsWith('/cancel'))
    return { status: 200, json: { actionApprovalRequest: null } };
  if (route.startsWith('GET {p}/action-approvals/my-requests/')) return { status: 200, json: wrappedRequest };
  return { status: 404, json: { error: `no route ${route}` } };
}

/** Answers the calls whose bodies hold tokens, in the neutral vocabulary. */
export function neutralHandler(req: RecordedRequest): JsonReply {
  const route = `${req.method} ${req.path.replace(P, '{p}').replace('/api', '')}`;
  if (route === 'POST {p}/source-accounts/list') return { status: 200, json: { accounts: [sourceAccount()] } };
  if (route === 'POST {p}/restore-accounts/list') return { status: 200, json: { accounts: [restoreAccount()] } };
  if (route === 'POST {p}/source-accounts' || route.startsWith('PATCH {p}/source-accounts/')) {
    return { status: 200, json: { sourceAccount: sourceAccount() } };
  }
  if (route === 'POST {p}/resources') return { status: 200, json: { resources: [resource()] } };
  if (route === 'POST {p}/vaults') return { status: 201, json: { vault: vault() } };
  if (route.endsWith('/restore-bucket') || route.endsWith('/restore-files'))
    return { status: 202, json: { jobId: 'j' } };
  if (route.endsWith('/databases/query')) return { status: 202, json: { queryId: 'q-1:q-2' } };
  if (route === 'POST /v1/cost-data') return { status: 200, json: { records: [], nextToken: null } };
  if (route === 'POST /v1/roles') return { status: 201, json: { role: role() } };
  return { status: 404, json: { error: `no route ${route}` } };
}

/** A recording server that speaks the public dialect (token body included). */
export function publicService(server: RecordingServer): void {
  server.tokenHandler = () => publicToken(server);
  server.handler = publicHandler;
}

/** Every object key and string value of a JSON body, where a dialect's tokens would be. */
export function wordsOf(body: string): string[] {
  if (body === '') return [];
  const words: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') words.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        words.push(key);
        walk(inner);
      }
    }
  };
  walk(JSON.parse(body) as unknown);
  return words;
}

/** The tokens only one dialect writes: provider values and members, destination members, resource types. */
export function tokensOnlyOf(dialect: Dialect): Set<string> {
  const other: Dialect = dialect === 'neutral' ? 'public' : 'neutral';
  const tokens = [
    ...Object.values(PROVIDERS).flatMap((p) => [p.value[dialect], p.member[dialect]]),
    ...Object.values(DESTINATIONS).map((d) => d[dialect]),
    ...RESOURCE_TYPE_ROWS.map((r) => r[dialect]),
  ].filter((t): t is string => t !== undefined);
  const shared = new Set([
    ...Object.values(PROVIDERS).flatMap((p) => [p.value[other], p.member[other]]),
    ...Object.values(DESTINATIONS).map((d) => d[other]),
  ]);
  return new Set(tokens.filter((t) => !shared.has(t)));
}

/** The neutral vocabulary's tokens as the lint rule finds them (test/lint/dialect-tokens.test.ts). */
export const NEUTRAL_TOKEN =
  /(?<![A-Za-z0-9_])(?:P[A-D]_[A-Z0-9_]*|PROVIDER_[A-Z0-9_]+|bucket[AC]|provider[A-D])(?![A-Za-z0-9])/;
