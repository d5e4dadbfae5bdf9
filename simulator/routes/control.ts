import { z } from 'zod';
import type { SimModule } from '../context';
import { parse } from '../errors';
import { ALL_PERMISSIONS, type PermissionType } from '../permissions';

const CredentialsInput = z.object({
  permissions: z.array(z.enum(ALL_PERMISSIONS as [PermissionType, ...PermissionType[]])).optional(),
});
const AdvanceInput = z.object({ seconds: z.number().min(0) });
export const FaultInput = z.object({
  rate: z.number().min(0).max(1),
  kinds: z.array(z.enum(['500', '503', '429', 'reset', 'latency'])),
  latencyMs: z.number().int().min(0).optional(),
  retryAfterSeconds: z.number().int().min(0).optional(),
  pathPrefix: z.string().optional(),
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
        return { now: ctx.clock.iso(ctx.clock.advance(seconds)) };
      });

      app.put('/_simulator/faults', async (req) => {
        ctx.state.faults = parse(FaultInput, req.body, 'body');
        return { faults: ctx.state.faults };
      });

      app.delete('/_simulator/faults', async (_req, reply) => {
        delete ctx.state.faults;
        return reply.code(204).send();
      });
    },
  };
}
