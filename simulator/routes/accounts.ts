import {
  AccountListInput,
  ConnectSourceAccountInput,
  PageParams,
  UpdateSourceAccountInput,
  type RestoreAccountDocument as RestoreAccount,
  type SourceAccountDocument as SourceAccount,
  type SourceAccountAttributesInput,
} from '../../api';
import type { FastifyRequest } from 'fastify';
import type { SimContext, SimModule } from '../context';
import { SimError, conflict, notFound, parse } from '../errors';
import { matchesInNotIn, matchesName, sortItems } from '../filters';
import type { SimState } from '../model';
import { paginate } from '../paging';
import type { Random } from '../random';

type AccountParams = { Params: { projectId: string; accountId: string } };
type ProjectParams = { Params: { projectId: string } };

const DAY_MS = 86_400_000;
/** Seeded times count from a fixed date, so that a seed gives the same accounts whenever it runs. */
const SEED_EPOCH = Date.UTC(2024, 0, 1);

/** Paging query parameters: the query string carries `pageSize` as text. */
export function pageQuery(query: unknown): PageParams {
  const q = (query ?? {}) as Record<string, unknown>;
  const size = q.pageSize;
  const pageSize = typeof size === 'string' && /^-?\d+$/.test(size) ? Number(size) : size;
  return parse(PageParams, { pageToken: q.pageToken, pageSize }, 'query');
}

/** The CONNECTED source accounts the inventory is discovered in, optionally of one provider, in seeding order. */
export function connectedSourceAccounts(state: SimState, cloudProvider?: string): SourceAccount[] {
  return Object.values(state.sourceAccounts).filter(
    (a) => a.status === 'CONNECTED' && (!cloudProvider || a.sourceAccountAttributes.cloudProvider === cloudProvider),
  );
}

/** Source and restore accounts (docs/service-interface.md §5, §6). */
export const accountsModule: SimModule = {
  name: 'accounts',
  seed(state, random) {
    seedSourceAccounts(state, random);
    seedRestoreAccounts(state, random);
  },
  routes(app, ctx) {
    const base = '/v1/projects/:projectId/source-accounts';

    app.post<ProjectParams>(base, async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'source_accounts.manage');
      const input = parse(ConnectSourceAccountInput, req.body, 'body');
      const providerAccountId = deriveProviderAccountId(input.sourceAccountAttributes);
      const existing = Object.values(ctx.state.sourceAccounts).find((a) => a.providerAccountId === providerAccountId);
      if (existing) throw conflict(`source account ${providerAccountId} is already connected as ${existing.id}`);
      const account: SourceAccount = {
        id: ctx.newId(),
        providerAccountId,
        name: input.name ?? `${input.sourceAccountAttributes.cloudProvider} ${providerAccountId}`,
        status: 'CONNECTED',
        sourceAccountAttributes: input.sourceAccountAttributes,
      };
      verify(ctx, account);
      ctx.state.sourceAccounts[account.id] = account;
      return { sourceAccount: account };
    });

    app.get<AccountParams>(`${base}/:accountId`, async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'inventory.view');
      return { sourceAccount: findSourceAccount(ctx.state, req.params.accountId) };
    });

    app.patch<AccountParams>(`${base}/:accountId`, async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'source_accounts.manage');
      const account = findSourceAccount(ctx.state, req.params.accountId);
      const input = parse(UpdateSourceAccountInput, req.body, 'body');
      if (input.sourceAccountAttributes) {
        const attrs = input.sourceAccountAttributes;
        if (attrs.cloudProvider !== account.sourceAccountAttributes.cloudProvider) {
          throw new SimError(400, 'invalid body.sourceAccountAttributes.cloudProvider: the provider cannot change');
        }
        if (deriveProviderAccountId(attrs) !== account.providerAccountId) {
          throw new SimError(400, `invalid body.sourceAccountAttributes: the account ID cannot change`);
        }
        if (!verifies(attrs)) throw new SimError(400, 'the provider refused to verify the role or service account');
        account.sourceAccountAttributes = attrs;
        // Working credentials are what an account with insufficient permissions was waiting for.
        if (account.status === 'INSUFFICIENT_PERMISSIONS') verify(ctx, account);
      }
      if (input.name !== undefined) account.name = input.name;
      return { sourceAccount: account };
    });

    app.delete<AccountParams>(`${base}/:accountId`, async (req, reply) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'source_accounts.manage');
      const account = findSourceAccount(ctx.state, req.params.accountId);
      if (account.status === 'CONNECTED') throw conflict('disconnect the source account before deleting it');
      releaseResources(ctx.state, account.id);
      delete ctx.state.sourceAccounts[account.id];
      return reply.code(200).send();
    });

    app.post<ProjectParams>(`${base}/list`, async (req) =>
      accountPage(
        ctx,
        req,
        (state) => state.sourceAccounts,
        (a) => a.sourceAccountAttributes,
      ),
    );

    app.post<AccountParams>(`${base}/:accountId/disconnect`, async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'source_accounts.manage');
      const account = findSourceAccount(ctx.state, req.params.accountId);
      account.status = 'DISCONNECTED';
      releaseResources(ctx.state, account.id);
      return { sourceAccount: account };
    });

    app.post<AccountParams>(`${base}/:accountId/reconnect`, async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'source_accounts.manage');
      const account = findSourceAccount(ctx.state, req.params.accountId);
      if (account.status !== 'CONNECTED') verify(ctx, account);
      if (account.status === 'CONNECTED') {
        // Back under protection: the kept resources wait for their posture to be evaluated again.
        for (const record of Object.values(ctx.state.resources)) {
          if (record.sourceAccountId === account.id && record.resource.backupStatus === 'DISCONNECTED') {
            record.resource.backupStatus = 'INITIAL_CLASSIFICATION';
          }
        }
      }
      return { sourceAccount: account };
    });

    restoreAccountRoutes(app, ctx);
  },
};

function restoreAccountRoutes(app: Parameters<SimModule['routes']>[0], ctx: SimContext): void {
  app.post<ProjectParams>('/v1/projects/:projectId/restore-accounts/list', async (req) =>
    accountPage(
      ctx,
      req,
      (state) => state.restoreAccounts,
      (a) => a.restoreAccountAttributes,
    ),
  );

  app.get<AccountParams>('/v1/projects/:projectId/restore-accounts/:accountId', async (req) => {
    ctx.requireProject(req.params.projectId);
    ctx.authorize(req, 'inventory.view');
    const account = ctx.state.restoreAccounts[req.params.accountId];
    if (!account) throw notFound(`restore account ${req.params.accountId}`);
    return { restoreAccount: account };
  });
}

function findSourceAccount(state: SimState, accountId: string): SourceAccount {
  const account = state.sourceAccounts[accountId];
  if (!account) throw notFound(`source account ${accountId}`);
  return account;
}

/**
 * The provider-assigned account ID the attributes name: the 12 digits of a PROVIDER_A role ARN, the PROVIDER_B
 * subscription ID, or the PROVIDER_C project of the service account (`name@project.iam.…`).
 */
export function deriveProviderAccountId(attrs: SourceAccountAttributesInput): string {
  const where = 'body.sourceAccountAttributes';
  if (attrs.providerA) {
    const match = /^arn:[a-z-]+:iam::(\d{12}):role\/[\w+=,.@/-]+$/.exec(attrs.providerA.roleArn);
    if (!match?.[1]) {
      throw new SimError(
        400,
        `invalid ${where}.providerA.roleArn: expected arn:<partition>:iam::<12 digits>:role/<name>`,
      );
    }
    return match[1];
  }
  if (attrs.providerB) {
    const id = attrs.providerB.subscriptionId.toLowerCase();
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) {
      throw new SimError(400, `invalid ${where}.providerB.subscriptionId: expected a uuid`);
    }
    return id;
  }
  if (attrs.providerC) {
    const match = /^[a-z0-9][a-z0-9._-]*@([a-z][a-z0-9-]{4,28}[a-z0-9])\.iam\.[a-z0-9.-]+$/.exec(
      attrs.providerC.serviceAccount,
    );
    if (!match?.[1]) {
      throw new SimError(400, `invalid ${where}.providerC.serviceAccount: expected <name>@<project>.iam.<domain>`);
    }
    return match[1];
  }
  throw new SimError(400, `invalid ${where}.cloudProvider: ${attrs.cloudProvider} accounts cannot be connected here`);
}

/** The simulated provider refuses any role, subscription or service account whose attributes say "insufficient". */
function verifies(attrs: SourceAccount['sourceAccountAttributes']): boolean {
  return !/insufficient/i.test(JSON.stringify(attrs));
}

/** Connect and reconnect: CONNECTED when the provider verifies the attributes, INSUFFICIENT_PERMISSIONS otherwise. */
function verify(ctx: SimContext, account: SourceAccount): void {
  if (verifies(account.sourceAccountAttributes)) {
    account.status = 'CONNECTED';
    account.connectedTime = ctx.clock.iso();
  } else {
    account.status = 'INSUFFICIENT_PERMISSIONS';
  }
}

/**
 * An account that is no longer connected stops backing up its resources: those with snapshots stay, explorable and
 * restorable, as DISCONNECTED; those without leave the inventory.
 */
function releaseResources(state: SimState, accountId: string): void {
  const snapshotted = new Set(Object.values(state.snapshots).map((s) => s.resourceId));
  for (const [key, record] of Object.entries(state.resources)) {
    if (record.sourceAccountId !== accountId) continue;
    const resource = record.resource;
    if (snapshotted.has(resource.id) || (resource.snapshotStorage.eonSnapshotCount ?? 0) > 0) {
      resource.backupStatus = 'DISCONNECTED';
    } else {
      delete state.resources[key];
    }
  }
}

interface AccountLike {
  id: string;
  providerAccountId: string;
  name: string;
  status: string;
  connectedTime?: string;
}

/**
 * The account lists' filters (docs/service-interface.md §5, §6): `in` any equal, `notIn` none equal, `contains` any
 * substring; then sorts in list order.
 */
function listAccounts<T extends AccountLike>(
  accounts: T[],
  attributes: (account: T) => { cloudProvider: string },
  input: AccountListInput,
): T[] {
  const f = input.filters ?? {};
  const filtered = accounts.filter(
    (a) =>
      matchesInNotIn(a.id, f.id) &&
      matchesInNotIn(a.providerAccountId, f.providerAccountId) &&
      matchesInNotIn<string>(a.status, f.accountStatus) &&
      matchesInNotIn<string>(attributes(a).cloudProvider, f.cloudProvider) &&
      matchesName(a.name, f.accountName),
  );
  // An account never connected has no time: it sorts last whatever the order. Ties keep the stored order.
  return sortItems(filtered, input.sorts ?? [], (a, field) => a[field]);
}

/** One page of an account list; no default page size is stated for them (docs/service-interface.md §5), so 50. */
function accountPage<T extends AccountLike>(
  ctx: SimContext,
  req: FastifyRequest<ProjectParams>,
  accounts: (state: SimState) => Record<string, T>,
  attributes: (account: T) => { cloudProvider: string },
) {
  ctx.requireProject(req.params.projectId);
  ctx.authorize(req, 'inventory.view');
  const body = parse(AccountListInput, req.body, 'body');
  const items = listAccounts(Object.values(accounts(ctx.state)), attributes, body);
  const page = paginate(items, pageQuery(req.query), 50, body);
  return { accounts: page.items, totalCount: page.totalCount, nextToken: page.nextToken };
}

const digits = (random: Random, n: number) => Array.from({ length: n }, () => random.int(0, 9)).join('');
const seededTime = (random: Random) => new Date(SEED_EPOCH + random.int(0, 180) * DAY_MS).toISOString();

function seedSourceAccounts(state: SimState, random: Random): void {
  const a = (name: string, role: string, status: 'CONNECTED' | 'INSUFFICIENT_PERMISSIONS') => {
    const providerAccountId = `4${digits(random, 11)}`;
    return {
      name,
      providerAccountId,
      status,
      sourceAccountAttributes: {
        cloudProvider: 'PROVIDER_A',
        providerA: { roleArn: `arn:pa:iam::${providerAccountId}:role/${role}` },
      },
    };
  };
  const subscriptionId = random.uuid();
  const project = `analytics-prod-${digits(random, 4)}`;
  const seeds = [
    a('payments-prod', 'backup-service', 'CONNECTED'),
    a('payments-staging', 'backup-service', 'CONNECTED'),
    {
      name: 'erp-prod',
      providerAccountId: subscriptionId,
      status: 'CONNECTED',
      sourceAccountAttributes: { cloudProvider: 'PROVIDER_B', providerB: { tenantId: random.uuid(), subscriptionId } },
    },
    {
      name: 'analytics-prod',
      providerAccountId: project,
      status: 'CONNECTED',
      sourceAccountAttributes: {
        cloudProvider: 'PROVIDER_C',
        providerC: { serviceAccount: `backup-service@${project}.iam.pc-cloud.example` },
      },
    },
    a('legacy-sandbox', 'backup-service-insufficient', 'INSUFFICIENT_PERMISSIONS'),
  ];
  for (const seed of seeds) {
    const id = random.uuid();
    const connectedTime = seededTime(random);
    state.sourceAccounts[id] = {
      id,
      ...seed,
      providerAccountName: seed.name,
      ...(seed.status === 'CONNECTED' ? { connectedTime } : {}),
    };
  }
}

function seedRestoreAccounts(state: SimState, random: Random): void {
  const seeds: [string, string, boolean][] = [
    ['restore-pa', 'PROVIDER_A', true],
    ['restore-pb', 'PROVIDER_B', true],
    ['restore-pc', 'PROVIDER_C', true],
    ['restore-pa-locked', 'PROVIDER_A', false],
  ];
  for (const [name, cloudProvider, isRestoreAllowed] of seeds) {
    const id = random.uuid();
    const providerAccountId =
      cloudProvider === 'PROVIDER_A'
        ? `5${digits(random, 11)}`
        : cloudProvider === 'PROVIDER_B'
          ? random.uuid()
          : `restore-${digits(random, 6)}`;
    const account: RestoreAccount = {
      id,
      providerAccountId,
      name,
      status: 'CONNECTED',
      restoreAccountAttributes: { cloudProvider },
      isRestoreAllowed,
      providerAccountName: name,
      connectedTime: seededTime(random),
    };
    state.restoreAccounts[id] = account;
  }
}
