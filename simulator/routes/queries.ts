import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import { RunQueryInput, type QueryStatusBody } from '../../api';
import { BUCKET_NAME, checkDestinationBucket } from '../buckets';
import type { SimContext, SimModule } from '../context';
import { SimError, notFound, parse } from '../errors';
import { readPageParams } from '../filters';
import type { QueryRecord } from '../model';
import { pageWindow } from '../paging';
import {
  DEFAULT_GENERATED_ROWS,
  GENERATED_COLUMNS,
  UNSUPPORTED_MESSAGE,
  generatedQueryKind,
  generatedRows,
  writeGeneratedCsv,
} from '../generated-table';
import {
  DATABASE_TABLES,
  RELATIONAL_TYPE as RELATIONAL,
  databaseNameOf,
  fillDatabase,
  growthDays,
  type TableCorruption,
} from '../seed-databases';
import { Lru, QueryFailure, loadSqlEngine, runSelect, toCsv, type QueryOutput } from '../sql-engine';
import { corruptionAt } from './corruption';

/**
 * Database queries over relational snapshots (docs/service-interface.md §8). The SQL runs once at submit time against a
 * seeded database; the status turns COMPLETED or FAILED `jobsConfig.querySeconds` later on the simulated clock.
 * Result rows live only in memory and are rebuilt from the seed when needed; the CSV is written when the status is
 * first seen COMPLETED.
 */

const DEFAULT_RESULTS_PAGE = 500;
/**
 * The largest results page served: a larger pageSize gets this many rows and a token for the rest. The service states
 * no maximum (docs/service-interface.md §8); this one keeps a page's body near a megabyte.
 */
export const MAX_RESULTS_PAGE = 10_000;
export const OUTPUT_SCHEME = 'bucketa://';

interface QueryRuntime {
  databases: Lru<string, Database>;
  outputs: Lru<string, QueryOutput>;
  bucketsDir?: string;
}

const runtimes = new WeakMap<SimContext, QueryRuntime>();

function runtimeOf(ctx: SimContext): QueryRuntime {
  let runtime = runtimes.get(ctx);
  if (!runtime) {
    runtime = { databases: new Lru(4, (db) => db.close()), outputs: new Lru(8) };
    runtimes.set(ctx, runtime);
  }
  return runtime;
}

/** Where simulated buckets live: `<dataDir>/buckets`, or a temporary directory removed on close. */
export function bucketsDirOf(ctx: SimContext): string {
  const runtime = runtimeOf(ctx);
  runtime.bucketsDir ??= ctx.options.dataDir
    ? join(ctx.options.dataDir, 'buckets')
    : join(tmpdir(), `backup-sim-${randomUUID()}`, 'buckets');
  return runtime.bucketsDir;
}

async function openDatabase(
  ctx: SimContext,
  resourceId: string,
  days: number,
  corruption: TableCorruption | undefined,
): Promise<Database> {
  const runtime = runtimeOf(ctx);
  // A corrupted database is a pure function of the corruption too: never served for a clean snapshot, nor the reverse.
  const key = `${resourceId}/${days}${corruption ? `/${corruption.kind}/${corruption.table}` : ''}`;
  const cached = runtime.databases.get(key);
  if (cached) return cached;
  const SQL = await loadSqlEngine();
  const db = new SQL.Database();
  try {
    fillDatabase(db, ctx.state.seed, resourceId, days, corruption);
  } catch (err) {
    db.close();
    throw err;
  }
  runtime.databases.set(key, db);
  return db;
}

/** The rows of a completed query, from the cache or by running its SQL again on the rebuilt database. */
async function outputOf(
  ctx: SimContext,
  query: Pick<QueryRecord, 'id' | 'resourceId' | 'growthDays' | 'query' | 'corruption'>,
): Promise<QueryOutput> {
  const runtime = runtimeOf(ctx);
  const cached = runtime.outputs.get(query.id);
  if (cached) return cached;
  const db = await openDatabase(ctx, query.resourceId, query.growthDays ?? 0, query.corruption);
  const output = runSelect(db, query.query);
  runtime.outputs.set(query.id, output);
  return output;
}

function prefixSegments(prefix: string | undefined): string[] {
  const segments = (prefix ?? '').split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))) {
    throw new SimError(400, 'invalid body.destination.bucketA.prefix: must not hold "." or ".." segments');
  }
  return segments;
}

function statusOf(ctx: SimContext, query: QueryRecord): 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' {
  if (ctx.clock.now() < query.endAt) return 'IN_PROGRESS';
  return query.errorMessage === undefined ? 'COMPLETED' : 'FAILED';
}

/** Writes the CSV once (atomically) and records its location. */
async function ensureCsv(ctx: SimContext, query: QueryRecord): Promise<string> {
  const bucket = query.destination.bucketA;
  if (!bucket) throw new SimError(500, `query ${query.id} has no bucketA destination`);
  const key = [...prefixSegments(bucket.prefix), `${query.id.replace(/:/g, '_')}.csv`];
  const path = join(bucketsDirOf(ctx), bucket.bucketName, ...key);
  const location = `${OUTPUT_SCHEME}${bucket.bucketName}/${key.join('/')}`;
  if (query.outputLocation === location && existsSync(path)) return location;
  mkdirSync(join(path, '..'), { recursive: true });
  if (query.generatedRows !== undefined) {
    writeGeneratedCsv(join(bucketsDirOf(ctx), '..', 'generated'), ctx.state.seed, query.generatedRows, path);
  } else {
    writeFileSync(`${path}.tmp`, toCsv(await outputOf(ctx, query)));
    renameSync(`${path}.tmp`, path);
  }
  query.outputLocation = location;
  return location;
}

function findQuery(ctx: SimContext, queryId: string): QueryRecord {
  const query = ctx.state.queries[queryId];
  if (!query) throw notFound(`query ${queryId}`);
  return query;
}

type ProjectParams = { projectId: string };
type QueryParams = ProjectParams & { queryId: string };

export const queriesModule: SimModule = {
  name: 'queries',

  routes(app, ctx) {
    app.addHook('onClose', async () => {
      const runtime = runtimes.get(ctx);
      if (!runtime) return;
      runtime.databases.clear();
      runtime.outputs.clear();
      if (!ctx.options.dataDir && runtime.bucketsDir)
        rmSync(join(runtime.bucketsDir, '..'), { recursive: true, force: true });
      runtimes.delete(ctx);
    });

    app.post<{ Params: ProjectParams & { snapshotId: string } }>(
      '/v1/projects/:projectId/snapshots/:snapshotId/databases/query',
      async (req, reply) => {
        ctx.authorize(req, 'databases.query');
        ctx.requireProject(req.params.projectId);
        const body = parse(RunQueryInput, req.body, 'body');
        const { state } = ctx;
        const snapshot = state.snapshots[req.params.snapshotId];
        if (!snapshot) throw notFound(`snapshot ${req.params.snapshotId}`);
        const resource = state.resources[snapshot.resourceId]?.resource;
        if (!resource) throw notFound(`resource ${snapshot.resourceId} of snapshot ${snapshot.id}`);
        if (resource.resourceType !== RELATIONAL) {
          throw new SimError(
            400,
            `snapshot ${snapshot.id} is of a ${resource.resourceType} resource; queries need a ${RELATIONAL} snapshot`,
          );
        }
        const databaseName = databaseNameOf(state.seed, resource.id);
        if (body.databaseName !== databaseName) {
          throw notFound(`database ${body.databaseName} in snapshot ${snapshot.id} (it holds ${databaseName})`);
        }
        if (!state.restoreAccounts[body.restoreAccountId]) {
          throw notFound(`restore account ${body.restoreAccountId}`);
        }
        const bucket = body.destination.bucketA;
        if (!bucket) throw new SimError(400, 'invalid body.destination.bucketA: required (the only destination kind)');
        if (!BUCKET_NAME.test(bucket.bucketName)) {
          throw new SimError(400, 'invalid body.destination.bucketA.bucketName: not a valid bucket name');
        }
        prefixSegments(bucket.prefix);
        const vaultRegion = (snapshot.vaultId ? state.vaults[snapshot.vaultId]?.region : undefined) ?? resource.region;
        const field = 'body.destination.bucketA.bucketName';
        checkDestinationBucket(state, body.restoreAccountId, field, bucket.bucketName, vaultRegion);

        const corruption = corruptionAt(state, snapshot);
        const run = {
          id: `${ctx.newId()}:${ctx.newId()}`,
          resourceId: resource.id,
          growthDays: growthDays(state.seed, resource, snapshot),
          query: body.query,
          ...(corruption ? { corruption } : {}),
        };
        const generated = generatedQueryKind(body.query);
        let errorMessage: string | undefined = generated === 'unsupported' ? UNSUPPORTED_MESSAGE : undefined;
        try {
          if (generated === undefined) await outputOf(ctx, run);
        } catch (err) {
          if (!(err instanceof QueryFailure)) throw err;
          errorMessage = err.message;
        }
        // The clock starts once the SQL has run, so a slow database build does not eat the IN_PROGRESS window.
        const createdAt = ctx.clock.now();
        const query: QueryRecord = {
          ...run,
          snapshotId: snapshot.id,
          databaseName,
          restoreAccountId: body.restoreAccountId,
          destination: body.destination,
          createdAt,
          endAt: createdAt + state.jobsConfig.querySeconds * 1000,
          ...(generated === 'generated' ? { generatedRows: state.generatedTableRows ?? DEFAULT_GENERATED_ROWS } : {}),
          ...(errorMessage === undefined ? {} : { errorMessage }),
        };
        state.queries[query.id] = query;
        return reply.code(202).send({ queryId: query.id });
      },
    );

    app.get<{ Params: QueryParams }>('/v1/projects/:projectId/queries/:queryId/status', async (req) => {
      ctx.authorize(req, 'databases.query');
      ctx.requireProject(req.params.projectId);
      const query = findQuery(ctx, req.params.queryId);
      const status = statusOf(ctx, query);
      const body: QueryStatusBody = {
        status,
        runningTimeMs: Math.min(ctx.clock.now(), query.endAt) - query.createdAt,
      };
      if (status === 'FAILED') body.errorMessage = query.errorMessage ?? null;
      if (status === 'COMPLETED') body.outputLocations = [await ensureCsv(ctx, query)];
      return body;
    });

    app.get<{ Params: QueryParams }>('/v1/projects/:projectId/queries/:queryId/results', async (req) => {
      ctx.authorize(req, 'databases.query');
      ctx.requireProject(req.params.projectId);
      const params = readPageParams(req.query);
      const query = findQuery(ctx, req.params.queryId);
      const status = statusOf(ctx, query);
      if (status !== 'COMPLETED') {
        throw new SimError(409, `query ${query.id} is ${status}; results can be read only once it is COMPLETED`);
      }
      await ensureCsv(ctx, query);
      const fingerprint = { queryId: query.id };
      if (query.generatedRows !== undefined) {
        const total = query.generatedRows;
        const page = pageWindow(total, params, DEFAULT_RESULTS_PAGE, fingerprint, MAX_RESULTS_PAGE);
        const records = generatedRows(ctx.state.seed, total, page.offset, page.size);
        return { columns: GENERATED_COLUMNS, records, nextToken: page.nextToken };
      }
      const output = await outputOf(ctx, query);
      const page = pageWindow(output.rows.length, params, DEFAULT_RESULTS_PAGE, fingerprint, MAX_RESULTS_PAGE);
      const records = output.rows.slice(page.offset, page.offset + page.size);
      return { columns: output.columns, records, nextToken: page.nextToken };
    });
  },

  summary(ctx) {
    const { state } = ctx;
    const databases = Object.values(state.resources)
      .filter(({ resource }) => resource.resourceType === RELATIONAL)
      .map(({ resource }) => ({
        resourceId: resource.id,
        databaseName: databaseNameOf(state.seed, resource.id),
        tables: [...DATABASE_TABLES],
        snapshotIds: Object.values(state.snapshots)
          .filter((s) => s.resourceId === resource.id)
          .sort((a, b) => (a.pointInTime ?? a.createdTime).localeCompare(b.pointInTime ?? b.createdTime))
          .map((s) => s.id),
      }))
      .sort((a, b) => a.resourceId.localeCompare(b.resourceId));
    return {
      databases,
      bucketsDir: bucketsDirOf(ctx),
    };
  },
};
