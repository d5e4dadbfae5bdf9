import type { FastifyRequest } from 'fastify';
import { CreateVaultInput, RenameVaultInput, type VaultDocument as Vault } from '../../api';
import type { SimContext, SimModule } from '../context';
import { SimError, conflict, notFound, parse } from '../errors';
import type { SimState } from '../model';
import { paginate } from '../paging';
import type { Random } from '../random';
import { pageQuery } from './accounts';

type VaultParams = { Params: { projectId: string; vaultId: string } };
type ProjectParams = { Params: { projectId: string } };

/** The regions the seeded vaults live in, per provider: the inventory seeds its resources in the same ones. */
export const SEEDED_REGIONS = {
  PROVIDER_A: ['pa-east-1', 'pa-west-2'],
  PROVIDER_B: ['pb-central'],
  PROVIDER_C: ['pc-europe-1'],
} as const;
export type SeededProvider = keyof typeof SEEDED_REGIONS;

/** The service's own vault account per provider: where every vault created through the API lives. */
const MANAGED_VAULT_ACCOUNTS: Record<string, { vaultAccountId: string; providerAccountId: string }> = {
  PROVIDER_A: { vaultAccountId: '0e0a0000-0000-4000-8000-00000000000a', providerAccountId: '900000000001' },
  PROVIDER_B: { vaultAccountId: '0e0b0000-0000-4000-8000-00000000000b', providerAccountId: 'eon-vaults-pb' },
  PROVIDER_C: { vaultAccountId: '0e0c0000-0000-4000-8000-00000000000c', providerAccountId: 'eon-vaults-pc' },
  PROVIDER_D: { vaultAccountId: '0e0d0000-0000-4000-8000-00000000000d', providerAccountId: 'eon-vaults-pd' },
};

/** Vaults of a region, service-managed ones first (they are what a drill picks by default). */
export function vaultsInRegion(state: SimState, region: string): Vault[] {
  return Object.values(state.vaults)
    .filter((v) => v.region === region)
    .sort((a, b) => Number(b.isManagedByEon) - Number(a.isManagedByEon));
}

/** Vaults. */
export const vaultsModule: SimModule = {
  name: 'vaults',
  seed(state, random) {
    seedVaults(state, random);
  },
  routes(app, ctx) {
    app.post<ProjectParams>('/v1/projects/:projectId/vaults', async (req, reply) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'vaults.manage');
      const input = parse(CreateVaultInput, req.body, 'body');
      const attrs = input.vaultAttributes;
      const key = attrs.providerA?.encryptionKey;
      // Only a customer-managed key can clash; every service-managed key is distinct.
      if (key && Object.values(ctx.state.vaults).some((v) => v.region === input.region && keyOf(v) === key)) {
        throw conflict(`a vault with encryption key ${key} already exists in ${input.region}`);
      }
      const account = MANAGED_VAULT_ACCOUNTS[attrs.cloudProvider];
      if (!account) throw new SimError(400, `invalid body.vaultAttributes.cloudProvider: ${attrs.cloudProvider}`);
      const vault: Vault = {
        id: ctx.newId(),
        ...account,
        name: input.name,
        region: input.region,
        isManagedByEon: true,
        vaultAttributes: { cloudProvider: attrs.cloudProvider, ...(key ? { providerA: { encryptionKey: key } } : {}) },
      };
      ctx.state.vaults[vault.id] = vault;
      return reply.code(201).send({ vault });
    });

    app.get<VaultParams>('/v1/projects/:projectId/vaults/:vaultId', async (req) => {
      ctx.requireProject(req.params.projectId);
      authorizeRead(ctx, req);
      return { vault: findVault(ctx.state, req.params.vaultId) };
    });

    app.patch<VaultParams>('/v1/projects/:projectId/vaults/:vaultId', async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'vaults.manage');
      const vault = findVault(ctx.state, req.params.vaultId);
      vault.name = parse(RenameVaultInput, req.body, 'body').name;
      return { vault };
    });

    app.post<ProjectParams>('/v1/projects/:projectId/vaults/list', async (req) => {
      ctx.requireProject(req.params.projectId);
      authorizeRead(ctx, req);
      // No default page size is stated for vaults; 50 is the default of every other list.
      const page = paginate(Object.values(ctx.state.vaults), pageQuery(req.query), 50, 'vaults');
      return { vaults: page.items, totalCount: page.totalCount, nextToken: page.nextToken };
    });
  },
};

/** Reading vaults is part of managing them, and of viewing the inventory (a drill picks its vault). */
function authorizeRead(ctx: SimContext, req: FastifyRequest): void {
  try {
    ctx.authorize(req, 'inventory.view');
  } catch (err) {
    if (!(err instanceof SimError) || err.status !== 403) throw err;
    ctx.authorize(req, 'vaults.manage');
  }
}

function findVault(state: SimState, vaultId: string): Vault {
  const vault = state.vaults[vaultId];
  if (!vault) throw notFound(`vault ${vaultId}`);
  return vault;
}

const keyOf = (vault: Vault) => vault.vaultAttributes.providerA?.encryptionKey;

function seedVaults(state: SimState, random: Random): void {
  for (const [provider, regions] of Object.entries(SEEDED_REGIONS)) {
    const account = MANAGED_VAULT_ACCOUNTS[provider];
    if (!account) continue;
    for (const region of regions) {
      const id = random.uuid();
      state.vaults[id] = {
        id,
        ...account,
        name: `backups-${region}`,
        region,
        isManagedByEon: true,
        vaultAttributes: { cloudProvider: provider },
      };
    }
  }
  // One vault in a customer's own vault account, under the customer's key.
  const id = random.uuid();
  const providerAccountId = `7${Array.from({ length: 11 }, () => random.int(0, 9)).join('')}`;
  const region = SEEDED_REGIONS.PROVIDER_A[1];
  state.vaults[id] = {
    id,
    vaultAccountId: random.uuid(),
    providerAccountId,
    name: `customer-key-${region}`,
    region,
    isManagedByEon: false,
    vaultAttributes: {
      cloudProvider: 'PROVIDER_A',
      providerA: { encryptionKey: `arn:pa:kms:${region}:${providerAccountId}:key/${random.uuid()}` },
    },
  };
}
