import { z } from 'zod';
import type { SimModule } from '../context';
import { SimError, parse } from '../errors';
import { FAULT_KINDS } from '../faults';
import { DEFAULT_GENERATED_ROWS, GENERATED_TABLE, MAX_GENERATED_ROWS } from '../generated-table';
import { ALL_PERMISSIONS, type PermissionType } from '../permissions';
import { PROVIDERS } from '../seed-inventory';
import { generateInventory, MAX_GENERATED_RESOURCES, MAX_SNAPSHOTS_PER_RESOURCE } from '../seed-inventory-bulk';

const CredentialsInput = z.strictObject({
  permissions: z.array(z.enum(ALL_PERMISSIONS as [PermissionType, ...PermissionType[]])).optional(),
});
/** Ten years: enough for any expiry or retention a test plays, small enough to keep dates valid. */
export const MAX_ADVANCE_SECONDS = 315_360_000;
const AdvanceInput = z.strictObject({ seconds: z.number().min(0).max(MAX_ADVANCE_SECONDS) });
/** The latest instant an HTTP-date (four-digit year) and every ISO field can show. */
const LATEST_MS = Date.parse('9999-12-31T23:59:59Z');
const LatencyInput = z.strictObject({ ms: z.number().int().min(0).max(60_000) });
const GeneratedTableInput = z.strictObject({ rows: z.number().int().min(0).max(MAX_GENERATED_ROWS) });
const GenerateInventoryInput = z.strictObject({
  resources: z.number().int().min(1).max(MAX_GENERATED_RESOURCES),
  snapshotsPerResource: z.number().int().min(0).max(MAX_SNAPSHOTS_PER_RESOURCE).default(0),
  cloudProvider: z.enum(PROVIDERS).default('PROVIDER_A'),
  seed: z.number().int().min(0).max(0xffffffff).optional(),
});
const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** `PUT /_simulator/faults` and the `--fault-*` flags. Another tool's harness depends on these names. */
export const FaultInput = z.strictObject({
  rate: z.number().min(0).max(1),
  kinds: z.array(z.enum(FAULT_KINDS)).min(1, 'name at least one fault kind'),
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  pathPrefix: z.string().startsWith('/', "must start with '/'").max(500).optional(),
  /** Only requests with this HTTP method; any case. */
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` }))
    .optional(),
  /** At most this many faulted requests, then the configuration removes itself. */
  times: z.number().int().min(1).max(1_000_000).optional(),
});

/** The control API's core routes: health, state, credentials, clock and faults. No bearer token needed. */
export function controlModule(modules: () => readonly SimModule[]): SimModule {
  return {
    name: 'control',
    routes(app, ctx) {
      app.get('/_simulator/health', async () => ({ ok: true }));

      app.get('/_simulator/state', async () => {
        const s = ctx.state;
        const extra = Object.assign({}, ...modules().map((m) => m.summary?.(ctx) ?? {})) as Record<string, unknown>;
        return {
          projectId: s.projectId,
          now: ctx.clock.iso(),
          counts: {
            resources: Object.keys(s.resources).length,
            snapshots: Object.keys(s.snapshots).length,
            backupJobs: Object.keys(s.backupJobs).length,
            restoreJobs: Object.keys(s.restoreJobs).length,
            actionRequests: Object.keys(s.actionRequests).length,
            queries: Object.keys(s.queries).length,
          },
          databases: [],
          ...extra,
        };
      });

      app.post('/_simulator/credentials', async (req, reply) => {
        const body = parse(CredentialsInput, req.body, 'body');
        const clientId = `client-${ctx.newId()}`;
        const clientSecret = ctx.newSecret();
        ctx.state.credentials[clientId] = {
          clientId,
          clientSecret,
          permissions: body.permissions ?? [...ALL_PERMISSIONS],
          email: `${clientId}@example.com`,
          name: `Client ${clientId.slice(7, 15)}`,
        };
        return reply.code(201).send({ clientId, clientSecret });
      });

      app.post('/_simulator/clock/advance', async (req) => {
        const { seconds } = parse(AdvanceInput, req.body, 'body');
        if (ctx.clock.now() + seconds * 1000 > LATEST_MS) {
          throw new SimError(400, 'invalid body.seconds: the clock would pass the year 9999');
        }
        return { now: ctx.clock.iso(ctx.clock.advance(seconds)) };
      });

      app.put('/_simulator/faults', async (req) => {
        ctx.state.faults = parse(FaultInput, req.body, 'body');
        return { faults: ctx.state.faults };
      });

      // What is configured now: `times` counts down, and the configuration is gone once it reaches 0.
      app.get('/_simulator/faults', async () => ({ faults: ctx.state.faults ?? null }));

      // Every `/v1` request waits this long before its route runs: a network's round trip, for benchmarks.
      app.put('/_simulator/latency', async (req) => {
        const { ms } = parse(LatencyInput, req.body, 'body');
        if (ms === 0) delete ctx.state.latencyMs;
        else ctx.state.latencyMs = ms;
        return { ms };
      });

      app.get('/_simulator/latency', async () => ({ ms: ctx.state.latencyMs ?? 0 }));

      // The generated table's size for queries submitted from now on (generated-table.ts).
      app.put(`/_simulator/tables/${GENERATED_TABLE}`, async (req) => {
        const { rows } = parse(GeneratedTableInput, req.body, 'body');
        ctx.state.generatedTableRows = rows;
        return { table: GENERATED_TABLE, rows };
      });

      app.get(`/_simulator/tables/${GENERATED_TABLE}`, async () => ({
        table: GENERATED_TABLE,
        rows: ctx.state.generatedTableRows ?? DEFAULT_GENERATED_ROWS,
      }));

      // A large inventory in a new source account, for tests and benchmarks at scale (seed-inventory-bulk.ts).
      app.post('/_simulator/inventory/generate', async (req, reply) => {
        const body = parse(GenerateInventoryInput, req.body, 'body');
        const seed = body.seed ?? ctx.options.seed + Object.keys(ctx.state.sourceAccounts).length;
        return reply.code(201).send(generateInventory(ctx.state, ctx.clock.now(), { ...body, seed }));
      });

      app.delete('/_simulator/faults', async (_req, reply) => {
        delete ctx.state.faults;
        return reply.code(204).send();
      });
    },
  };
}
