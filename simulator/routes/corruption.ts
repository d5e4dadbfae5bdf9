import { z } from 'zod';
import type { SnapshotDocument as Snapshot } from '../../api';
import type { SimContext, SimModule } from '../context';
import { SimError, notFound, parse } from '../errors';
import { settleJobs, snapshotsOf } from '../jobs';
import type { CorruptionRecord, SimState } from '../model';
import { CORRUPTION_KINDS, DATABASE_TABLES, RELATIONAL_TYPE, type TableCorruption } from '../seed-databases';

const CorruptionInput = z
  .strictObject({
    from: z.string().min(1).optional(),
    snapshotIds: z.array(z.string().min(1)).max(10_000).optional(),
    kind: z.enum(CORRUPTION_KINDS).default('rows-changed'),
    table: z.enum(DATABASE_TABLES).default(DATABASE_TABLES[0]),
  })
  .refine((body) => body.from !== undefined || (body.snapshotIds?.length ?? 0) > 0, {
    message: 'name the snapshots to corrupt: from, snapshotIds or both',
    path: ['from'],
  });

type ResourceParams = { Params: { resourceId: string } };

const timeOf = (s: Snapshot) => Date.parse(s.pointInTime ?? s.createdTime);

function covers(state: SimState, corruption: CorruptionRecord, snapshot: Snapshot): boolean {
  if (corruption.snapshotIds?.includes(snapshot.id)) return true;
  const from = corruption.from === undefined ? undefined : state.snapshots[corruption.from];
  return from !== undefined && timeOf(snapshot) >= timeOf(from);
}

/** The corruption a query on this snapshot reads, or undefined when its data is clean. */
export function corruptionAt(state: SimState, snapshot: Snapshot): TableCorruption | undefined {
  const corruption = state.corruption?.[snapshot.resourceId];
  if (!corruption || !covers(state, corruption, snapshot)) return undefined;
  return { kind: corruption.kind, table: corruption.table };
}

function relationalResource(ctx: SimContext, resourceId: string): void {
  const resource = ctx.state.resources[resourceId]?.resource;
  if (!resource) throw notFound(`resource ${resourceId}`);
  if (resource.resourceType !== RELATIONAL_TYPE) {
    throw new SimError(400, `resource ${resourceId} is a ${resource.resourceType}; only ${RELATIONAL_TYPE} has data`);
  }
}

function view(ctx: SimContext, resourceId: string) {
  const corruption = ctx.state.corruption?.[resourceId];
  const covered = corruption ? snapshotsOf(ctx.state, resourceId).filter((s) => covers(ctx.state, corruption, s)) : [];
  return { resourceId, corruption: corruption ?? null, coveredSnapshotIds: covered.map((s) => s.id) };
}

/** Control routes that corrupt the databases in a relational resource's snapshots, for clean-point tests. */
export const corruptionModule: SimModule = {
  name: 'corruption',
  routes(app, ctx) {
    const path = '/_simulator/corruption/:resourceId';

    app.put<ResourceParams>(path, async (req) => {
      const body = parse(CorruptionInput, req.body, 'body');
      const { resourceId } = req.params;
      relationalResource(ctx, resourceId);
      settleJobs(ctx);
      const snapshotIds = [...new Set(body.snapshotIds ?? [])];
      for (const id of [...(body.from === undefined ? [] : [body.from]), ...snapshotIds]) {
        if (ctx.state.snapshots[id]?.resourceId !== resourceId)
          throw notFound(`snapshot ${id} of resource ${resourceId}`);
      }
      const record: CorruptionRecord = { kind: body.kind, table: body.table };
      if (body.from !== undefined) record.from = body.from;
      if (snapshotIds.length > 0) record.snapshotIds = snapshotIds;
      (ctx.state.corruption ??= {})[resourceId] = record;
      return view(ctx, resourceId);
    });

    app.get<ResourceParams>(path, async (req) => {
      relationalResource(ctx, req.params.resourceId);
      settleJobs(ctx);
      return view(ctx, req.params.resourceId);
    });

    app.delete<ResourceParams>(path, async (req, reply) => {
      relationalResource(ctx, req.params.resourceId);
      delete ctx.state.corruption?.[req.params.resourceId];
      return reply.code(204).send();
    });
  },
};
