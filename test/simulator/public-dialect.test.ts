// The simulator in the public dialect (docs/service-interface.md §10, §11), over raw HTTP: the token body, the lists
// without a body, the wrapped action-request read, and the public vocabulary of accounts, vaults, resources and
// snapshots. The state and the control API stay neutral.
import { PROVIDERS, RESOURCE_TYPE_ROWS } from '../../api/dialect';
import { startSimulator } from '../../simulator/server';
import {
  allPages,
  bodyOf,
  call,
  control,
  errorOf,
  projectPath,
  publicDialectSuite,
  underRestorePolicy,
  type Json,
  type Reply,
} from './helpers';

const { suite, api, project } = publicDialectSuite();

const listOf = (reply: Reply, key: string): Json[] => bodyOf(reply)[key] as Json[];

const PUBLIC_PROVIDERS = Object.values(PROVIDERS).map((p) => p.value.public);
const PUBLIC_TYPES = RESOURCE_TYPE_ROWS.map((r) => r.public);
const NEUTRAL_WORD = /\b(?:PROVIDER_[A-D]|P[A-D]_[A-Z_]+|provider[A-C]|bucket[AC])\b/;

test('the running simulator says which dialect it speaks; neutral by default', async () => {
  expect(suite.sim.dialect).toBe('public');
  const neutral = await startSimulator({ port: 0 });
  try {
    expect(neutral.dialect).toBe('neutral');
  } finally {
    await neutral.close();
  }
});

describe('tokens', () => {
  test('POST /v1/token answers {accessToken, expirationSeconds}, and the token works', async () => {
    const reply = await call(suite.sim, 'POST', '/v1/token', {
      body: { clientId: suite.sim.clientId, clientSecret: suite.sim.clientSecret },
    });
    const body = bodyOf(reply);
    expect(Object.keys(body).sort()).toEqual(['accessToken', 'expirationSeconds']);
    expect(body.expirationSeconds).toBe(43_200);
    const token = String(body.accessToken);
    expect((await api('GET', `${project()}/restore-accounts/${UNKNOWN}`, { auth: token })).status).toBe(404);
  });

  test('the OAuth2 endpoint keeps {access_token, token_type, expires_in}', async () => {
    const form = `grant_type=client_credentials&client_id=${suite.sim.clientId}&client_secret=${suite.sim.clientSecret}`;
    const reply = await call(suite.sim, 'POST', '/v1/oauth2/token', {
      raw: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(Object.keys(bodyOf(reply)).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
  });
});

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('the four lists without a request body', () => {
  const lists = () => [
    [`${project()}/vaults/list`, 'vaults'],
    ['/v1/roles/list', 'roles'],
    ['/v1/idps/list', 'idps'],
    ['/v1/idp-groups/list', 'groups'],
  ];

  test('a JSON body is 415, even an empty object', async () => {
    for (const [path] of lists()) {
      const reply = await api('POST', path ?? '', { body: {} });
      expect(reply.status).toBe(415);
      expect(errorOf(reply)).toMatch(/takes no request body: send pageToken and pageSize in the query string/);
    }
  });

  test('without a body they answer, paging in the query string', async () => {
    await api('POST', '/v1/idp-groups', {
      body: { idpId: Object.keys(suite.sim.ctx.state.idps)[0], providerGroupId: 'ops', roleIds: rolesIds() },
    });
    for (const [path, key] of lists()) {
      const pages = await allPages(1, async (query) => bodyOf(await api('POST', `${path}${query}`)));
      const items = pages.flatMap((p) => p[key ?? ''] as Json[]);
      expect(items.length).toBeGreaterThan(0);
      expect(pages).toHaveLength(items.length);
    }
  });

  const rolesIds = () => Object.keys(suite.sim.ctx.state.roles).slice(0, 1);

  test('the other lists still take a JSON body', async () => {
    expect(listOf(await api('POST', `${project()}/source-accounts/list`, { body: {} }), 'accounts').length).toBe(
      Object.keys(suite.sim.ctx.state.sourceAccounts).length,
    );
    expect(listOf(await api('POST', `${project()}/resources?pageSize=3`, { body: {} }), 'resources')).toHaveLength(3);
  });
});

describe('accounts and vaults', () => {
  test('source accounts name public providers and members (aws, azure, gcp), never neutral ones', async () => {
    const accounts = listOf(await api('POST', `${project()}/source-accounts/list`, { body: {} }), 'accounts');
    const members = new Map(accounts.map((a) => [(a.sourceAccountAttributes as Json).cloudProvider, a]));
    expect([...members.keys()].sort()).toEqual(['AWS', 'AZURE', 'GCP', 'MONGO_ATLAS']);
    expect(Object.keys(members.get('AWS')?.sourceAccountAttributes as Json).sort()).toEqual(['aws', 'cloudProvider']);
    expect(Object.keys(members.get('AZURE')?.sourceAccountAttributes as Json).sort()).toEqual([
      'azure',
      'cloudProvider',
    ]);
    expect(Object.keys(members.get('GCP')?.sourceAccountAttributes as Json).sort()).toEqual(['cloudProvider', 'gcp']);
    expect(JSON.stringify(accounts)).not.toMatch(NEUTRAL_WORD);
    const restore = listOf(await api('POST', `${project()}/restore-accounts/list`, { body: {} }), 'accounts');
    expect(new Set(restore.map((a) => (a.restoreAccountAttributes as Json).cloudProvider))).toEqual(
      new Set(['AWS', 'AZURE', 'GCP']),
    );
  });

  test('connecting a source account takes public providers and members; the state keeps neutral ones', async () => {
    const roleArn = 'arn:aws:iam::123456789012:role/backup';
    const reply = await api('POST', `${project()}/source-accounts`, {
      body: { name: 'public', sourceAccountAttributes: { cloudProvider: 'AWS', aws: { roleArn } } },
    });
    const account = bodyOf(reply).sourceAccount as Json;
    expect(account.sourceAccountAttributes).toEqual({ cloudProvider: 'AWS', aws: { roleArn } });
    expect(suite.sim.ctx.state.sourceAccounts[String(account.id)]?.sourceAccountAttributes).toEqual({
      cloudProvider: 'PROVIDER_A',
      providerA: { roleArn },
    });
  });

  test('a vault key is vaultAttributes.aws.encryptionKey, on create and in the list', async () => {
    const encryptionKey = 'arn:aws:kms:pa-east-1:111122223333:key/public';
    const created = await api('POST', `${project()}/vaults`, {
      body: { name: 'cmk', region: 'pa-east-1', vaultAttributes: { cloudProvider: 'AWS', aws: { encryptionKey } } },
    });
    expect((bodyOf(created, 201).vault as Json).vaultAttributes).toEqual({
      cloudProvider: 'AWS',
      aws: { encryptionKey },
    });
    const vaults = listOf(await api('POST', `${project()}/vaults/list?pageSize=100`), 'vaults');
    const keyed = vaults.filter((v) => ((v.vaultAttributes as Json).aws as Json | undefined)?.encryptionKey);
    expect(keyed).toHaveLength(2);
    expect(JSON.stringify(vaults)).not.toMatch(NEUTRAL_WORD);
  });
});

describe('resources and snapshots', () => {
  let resources: Json[];
  beforeAll(async () => {
    const pages = await allPages(100, async (q) =>
      bodyOf(await api('POST', `${project()}/resources${q}`, { body: {} })),
    );
    resources = pages.flatMap((p) => p.resources as Json[]);
  });

  test('resource types and providers are the public ones, every type of the table', () => {
    expect(resources.length).toBe(Object.keys(suite.sim.ctx.state.resources).length);
    for (const r of resources) {
      expect(PUBLIC_TYPES).toContain(r.resourceType);
      expect(PUBLIC_PROVIDERS).toContain(r.cloudProvider);
    }
    expect(new Set(resources.map((r) => r.resourceType)).size).toBe(RESOURCE_TYPE_ROWS.filter((r) => r.neutral).length);
    expect(resources.find((r) => r.resourceType === 'AWS_RDS')?.cloudProvider).toBe('AWS');
    expect(resources.find((r) => r.resourceType === 'ATLAS_MONGODB_CLUSTER')?.cloudProvider).toBe('MONGO_ATLAS');
  });

  test('a resource carries accountDisplayName, backupPolicies, threatDetection and vaults', () => {
    const state = suite.sim.ctx.state;
    for (const r of resources) {
      const record = state.resources[String(r.id)];
      expect(r.accountDisplayName).toBe(state.sourceAccounts[record?.sourceAccountId ?? '']?.name);
      expect(r.backupPolicies).toEqual([]);
      expect(r.threatDetection).toEqual({});
      const vaults = new Set(
        Object.values(state.snapshots)
          .filter((s) => s.resourceId === r.id)
          .map((s) => s.vaultId),
      );
      expect(new Set(r.vaults as string[])).toEqual(vaults);
    }
    expect(resources.some((r) => (r.vaults as string[]).length > 0)).toBe(true);
  });

  test('absent classification details are null; present ones are kept', () => {
    const classifications = resources.map((r) => r.classifications as Json);
    for (const key of ['dataClassesDetails', 'environmentDetails', 'appsDetails']) {
      for (const c of classifications) expect(c).toHaveProperty(key);
    }
    const neutral = Object.values(suite.sim.ctx.state.resources).map((r) => r.resource);
    const bare = neutral.find((r) => !r.classifications?.environmentDetails);
    const rich = neutral.find((r) => r.classifications?.environmentDetails);
    if (!bare || !rich) throw new Error('expected resources with and without an environment');
    const byId = (id: string) => resources.find((r) => r.id === id)?.classifications as Json;
    expect(byId(bare.id).environmentDetails).toBeNull();
    expect(byId(rich.id).environmentDetails).toEqual(rich.classifications?.environmentDetails);
  });

  test('reading one resource answers the same shape', async () => {
    const first = resources[0] as Json;
    expect(bodyOf(await api('GET', `${project()}/resources/${String(first.id)}`)).resource).toEqual(first);
  });

  test('a snapshot has a status, in the list and read alone', async () => {
    const resource = resources.find((r) => (r.vaults as string[]).length > 0) as Json;
    const snapshots = listOf(
      await api('POST', `${project()}/resources/${String(resource.id)}/snapshots`, { body: {} }),
      'snapshots',
    );
    expect(snapshots.length).toBeGreaterThan(0);
    for (const s of snapshots) expect(s.status).toBe('COMPLETED');
    const one = bodyOf(await api('GET', `${project()}/snapshots/${String(snapshots[0]?.id)}`)).snapshot as Json;
    expect(one.status).toBe('COMPLETED');
  });
});

describe('action requests', () => {
  test('reading one answers {mpaRequestDetail: {request, reviews}}, with nulls for what has not happened', async () => {
    await underRestorePolicy(suite.sim, { requiredApprovals: 2, windowHours: 2 }, async () => {
      const snapshot = Object.values(suite.sim.ctx.state.snapshots)[0];
      const account = Object.values(suite.sim.ctx.state.restoreAccounts).find((a) => a.isRestoreAllowed);
      const path = `${project()}/resources/${snapshot?.resourceId}/snapshots/${snapshot?.id}/restore-bucket`;
      const body = { restoreAccountId: account?.id, destination: { s3Bucket: { bucketName: 'restores' } } };
      const created = bodyOf(await api('POST', path, { body }), 201).actionApprovalRequest as Json;
      expect(created).toMatchObject({ status: 'CREATED', approvalExpirationTime: null, resolvedTime: null });
      expect(created.policyDetails).toEqual([expect.objectContaining({ approverIdpId: null })]);
      const id = String(created.id);
      const base = `${project()}/action-approvals/my-requests/${id}`;
      expect((await api('POST', `${base}/submit`, { body: { action: 'CONFIRM' } })).status).toBe(200);
      expect((await control(suite.sim, 'POST', `/action-requests/${id}/approve`, {})).status).toBe(200);

      const read = bodyOf(await api('GET', base));
      expect(Object.keys(read)).toEqual(['mpaRequestDetail']);
      const detail = read.mpaRequestDetail as { request: Json; reviews: Json[] };
      expect(detail.request).toMatchObject({ id, status: 'PENDING_APPROVAL', executionExpirationTime: null });
      expect(detail.reviews).toEqual([expect.objectContaining({ decision: 'APPROVED' })]);
      // The control API keeps its own shape.
      const console = await control(suite.sim, 'GET', `/action-requests/${id}`);
      expect(Object.keys(console.body as Json).sort()).toEqual(['actionApprovalRequest', 'reviews']);
    });
  });
});

describe('the control API stays neutral', () => {
  test('/_simulator/jobs and the state speak the neutral vocabulary', async () => {
    const jobs = await control(suite.sim, 'GET', '/jobs');
    expect(jobs.status).toBe(200);
    expect(JSON.stringify(jobs.body)).toMatch(/"cloudProvider":"PROVIDER_[A-D]"/);
    const inventory = await control(suite.sim, 'POST', '/inventory/generate', {
      resources: 2,
      cloudProvider: 'PROVIDER_B',
    });
    expect(inventory.status).toBe(201);
    const stored = Object.values(suite.sim.ctx.state.resources).map((r) => r.resource.resourceType);
    expect(stored.filter((t) => PUBLIC_TYPES.includes(t))).toEqual([]);
    expect(stored).toContain('PB_VM');
  });
});

test('behind a path prefix, the edge works the same', async () => {
  const prefixed = await startSimulator({ port: 0, prefix: '/api', dialect: 'public' });
  try {
    const token = await call(prefixed, 'POST', '/v1/token', {
      body: { clientId: prefixed.clientId, clientSecret: prefixed.clientSecret },
    });
    const auth = String(bodyOf(token).accessToken);
    expect((await call(prefixed, 'POST', '/v1/roles/list', { body: {}, token: auth })).status).toBe(415);
    const vaults = listOf(
      await call(prefixed, 'POST', `${projectPath(prefixed)}/vaults/list`, { token: auth }),
      'vaults',
    );
    expect(JSON.stringify(vaults)).not.toMatch(NEUTRAL_WORD);
  } finally {
    await prefixed.close();
  }
});

describe('the neutral simulator is unchanged', () => {
  test('the four lists take a JSON body; the token body is the neutral one', async () => {
    const neutral = await startSimulator({ port: 0 });
    try {
      const token = await call(neutral, 'POST', '/v1/token', {
        body: { clientId: neutral.clientId, clientSecret: neutral.clientSecret },
      });
      expect(Object.keys(token.body as Json).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
      const auth = String((token.body as Json).access_token);
      const vaults = await call(neutral, 'POST', `${projectPath(neutral)}/vaults/list`, { body: {}, token: auth });
      expect(vaults.status).toBe(200);
      expect(JSON.stringify(vaults.body)).toMatch(/"cloudProvider":"PROVIDER_A"/);
    } finally {
      await neutral.close();
    }
  });
});
