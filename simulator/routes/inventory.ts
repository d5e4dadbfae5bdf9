import {
  APPROVAL_HEADER,
  ResourceIncludes,
  ResourceListInput,
  RestoreBucketInput,
  RestoreFilesInput,
  SnapshotListInput,
  TakeSnapshotInput,
  type InventoryResourceDocument as InventoryResource,
  type ObjectStorageDestination,
  type SnapshotDocument as Snapshot,
} from '../../api';
import { canonicalJson, guardProtectedOperation } from '../approvals';
import { checkDestinationBucket } from '../buckets';
import type { SimContext, SimModule } from '../context';
import { notFound, parse } from '../errors';
import { matchesResourceFilters, readPageParams, resourceSortKey, sortItems } from '../filters';
import { settleJobs, startBackupJob, startRestoreJob } from '../jobs';
import type { ResourceRecord } from '../model';
import { paginate } from '../paging';
import { seedInventory } from '../seed-inventory';

type ProjectParams = { Params: { projectId: string } };
type ResourceParams = { Params: { projectId: string; id: string } };
type SnapshotParams = { Params: { projectId: string; id: string; snapshotId: string } };

const DEFAULT_PAGE_SIZE = 50;

/** The inventory (docs/service-interface.md §4): resources, their snapshots, take-snapshot and the two restores. */
export const inventoryModule: SimModule = {
  name: 'inventory',
  seed(state, _random, options) {
    seedInventory(state, options.seed);
  },
  routes(app, ctx) {
    const base = '/v1/projects/:projectId/resources';

    app.post<ProjectParams>(base, async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'inventory.view');
      const page = readPageParams(req.query);
      const withIndexes = readIncludes((req.query as Record<string, unknown>).include);
      const body = parse(ResourceListInput, req.body, 'body');
      settleJobs(ctx);
      const matched = Object.values(ctx.state.resources)
        .map((r) => r.resource)
        .filter((r) => matchesResourceFilters(r, body.filters));
      const sorted = sortItems(matched, body.sorts ?? [], resourceSortKey, (r) => r.id);
      const result = paginate(sorted, page, DEFAULT_PAGE_SIZE, { filters: body.filters, sorts: body.sorts });
      return {
        resources: result.items.map((r) => resourceView(r, withIndexes)),
        totalCount: result.totalCount,
        nextToken: result.nextToken,
      };
    });

    app.get<ResourceParams>(`${base}/:id`, async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'inventory.view');
      const withIndexes = readIncludes((req.query as Record<string, unknown>).include);
      settleJobs(ctx);
      return { resource: resourceView(requireResource(ctx, req.params.id).resource, withIndexes) };
    });

    app.post<ResourceParams>(`${base}/:id/take-snapshot`, async (req, reply) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'snapshots.take_or_convert');
      const body = parse(TakeSnapshotInput, req.body, 'body');
      settleJobs(ctx);
      const record = requireResource(ctx, req.params.id);
      if (!ctx.state.vaults[body.vaultId]) throw notFound(`vault ${body.vaultId}`);
      const job = startBackupJob(ctx, record.resource.id, body.vaultId, body.retentionDays);
      return reply.code(202).send({ jobId: job.id });
    });

    app.post<ResourceParams>(`${base}/:id/snapshots`, async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'inventory.view');
      const page = readPageParams(req.query);
      const body = parse(SnapshotListInput, req.body, 'body');
      settleJobs(ctx);
      const resource = requireResource(ctx, req.params.id).resource;
      const { startDate, endDate } = body.filters?.pointInTime ?? {};
      const matched = Object.values(ctx.state.snapshots).filter((s) => {
        // Dates are inclusive and compared with the UTC day of the point in time.
        const day = (s.pointInTime ?? s.createdTime).slice(0, 10);
        return s.resourceId === resource.id && (!startDate || day >= startDate) && (!endDate || day <= endDate);
      });
      // Newest first unless sorted otherwise.
      const sorts = body.sorts ?? [{ field: 'pointInTime', order: 'DESC' } as const];
      const sorted = sortItems(
        matched,
        sorts,
        (s) => s.pointInTime ?? s.createdTime,
        (s) => s.id,
      );
      const result = paginate(sorted, page, DEFAULT_PAGE_SIZE, { resourceId: resource.id, ...body });
      return { snapshots: result.items, totalCount: result.totalCount, nextToken: result.nextToken };
    });

    app.get<ResourceParams>('/v1/projects/:projectId/snapshots/:id', async (req) => {
      ctx.requireProject(req.params.projectId);
      ctx.authorize(req, 'inventory.view');
      settleJobs(ctx);
      const snapshot = ctx.state.snapshots[req.params.id];
      if (!snapshot) throw notFound(`snapshot ${req.params.id}`);
      return { snapshot };
    });

    restoreRoutes(app, ctx);
  },
};

function restoreRoutes(app: Parameters<SimModule['routes']>[0], ctx: SimContext): void {
  const base = '/v1/projects/:projectId/resources/:id/snapshots/:snapshotId';

  // Never under an approval policy (docs/service-interface.md §2).
  app.post<SnapshotParams>(`${base}/restore-files`, async (req, reply) => {
    ctx.requireProject(req.params.projectId);
    ctx.authorize(req, 'files.restore');
    const body = parse(RestoreFilesInput, req.body, 'body');
    settleJobs(ctx);
    const { resource, snapshot } = requireRestoreTargets(ctx, req.params, body);
    const job = startRestoreJob(ctx, {
      restoreType: 'FILES',
      resourceId: resource.id,
      snapshotId: snapshot.id,
      restoreAccountId: body.restoreAccountId,
      destination: body.destination,
    });
    return reply.code(202).send({ jobId: job.id });
  });

  app.post<SnapshotParams>(`${base}/restore-bucket`, async (req, reply) => {
    ctx.requireProject(req.params.projectId);
    const principal = ctx.authorize(req, 'resources.restore');
    const body = parse(RestoreBucketInput, req.body, 'body');
    settleJobs(ctx);
    // Unknown targets are refused before any action request is made for them.
    const { resource, snapshot } = requireRestoreTargets(ctx, req.params, body);
    const header = req.headers[APPROVAL_HEADER];
    const approvalRequestId = Array.isArray(header) ? header[0] : header;
    const operationKey = canonicalJson({ resourceId: resource.id, snapshotId: snapshot.id, body });
    const guard = guardProtectedOperation(
      ctx,
      principal,
      'MPA_OPERATION_RESTORE_RESOURCE',
      operationKey,
      approvalRequestId,
    );
    if (!guard.proceed) return reply.code(201).send({ actionApprovalRequest: guard.request });
    const job = startRestoreJob(ctx, {
      restoreType: 'BUCKET',
      resourceId: resource.id,
      snapshotId: snapshot.id,
      restoreAccountId: body.restoreAccountId,
      destination: body.destination,
    });
    guard.executed?.(job.id);
    return reply.code(202).send({ jobId: job.id });
  });
}

function requireResource(ctx: SimContext, id: string): ResourceRecord {
  const record = ctx.state.resources[id];
  if (!record) throw notFound(`resource ${id}`);
  return record;
}

/**
 * 404 for an unknown resource, a snapshot that is not one of the resource's, or an unknown restore account; 400 for a
 * destination bucket the restore account does not have (where its buckets are declared).
 */
function requireRestoreTargets(
  ctx: SimContext,
  params: { id: string; snapshotId: string },
  { restoreAccountId, destination }: { restoreAccountId: string; destination: ObjectStorageDestination },
): { resource: InventoryResource; snapshot: Snapshot } {
  const resource = requireResource(ctx, params.id).resource;
  const snapshot = ctx.state.snapshots[params.snapshotId];
  if (!snapshot || snapshot.resourceId !== resource.id) {
    throw notFound(`snapshot ${params.snapshotId} of resource ${resource.id}`);
  }
  if (!ctx.state.restoreAccounts[restoreAccountId]) throw notFound(`restore account ${restoreAccountId}`);
  for (const kind of ['bucketA', 'bucketC'] as const) {
    const bucketName = destination[kind]?.bucketName;
    if (bucketName === undefined) continue;
    checkDestinationBucket(ctx.state, restoreAccountId, `body.destination.${kind}.bucketName`, bucketName);
  }
  return { resource, snapshot };
}

/** `include` may be repeated or comma-separated; its only value is DYNAMODB_INDEXES. */
function readIncludes(raw: unknown): boolean {
  const values = raw === undefined ? [] : Array.isArray(raw) ? (raw as unknown[]) : [raw];
  const list = values
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return parse(ResourceIncludes, list, 'query.include').includes('DYNAMODB_INDEXES');
}

/** The API view of a stored resource: the key-value indexes only when asked for. */
export function resourceView(resource: InventoryResource, withIndexes: boolean): InventoryResource {
  const kv = resource.resourceProperties?.kvDbA;
  if (withIndexes || !kv) return resource;
  const { globalSecondaryIndexes: _g, localSecondaryIndexes: _l, ...rest } = kv;
  return { ...resource, resourceProperties: { ...resource.resourceProperties, kvDbA: rest } };
}
