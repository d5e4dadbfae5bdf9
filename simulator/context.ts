import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SimClock } from './clock';
import { SimError, forbidden } from './errors';
import type { CredentialRecord, SimState } from './model';
import type { PermissionType } from './permissions';
import type { Random } from './random';

export interface SimOptions {
  seed: number;
  /** Lifetime of issued tokens, in seconds. */
  tokenTtlSeconds: number;
  /** Where `--data-dir` keeps state and writes query CSVs; undefined keeps everything in memory. */
  dataDir?: string;
  bootstrapClientId: string;
  bootstrapClientSecret: string;
}

export interface Principal {
  credentials: CredentialRecord;
  token: string;
}

export interface SimContext {
  state: SimState;
  clock: SimClock;
  options: SimOptions;
  /** Checks the bearer token and the permission; throws 401 or 403. */
  authorize(req: FastifyRequest, permission: PermissionType): Principal;
  /** Checks that a path's project is the hosted one; throws 404 otherwise. */
  requireProject(projectId: string): void;
  newId(): string;
  newSecret(): string;
}

/** One concern of the simulator: its routes, and optionally its part of a fresh state and of `/_simulator/state`. */
export interface SimModule {
  name: string;
  seed?(state: SimState, random: Random, options: SimOptions): void;
  routes(app: FastifyInstance, ctx: SimContext): void;
  summary?(ctx: SimContext): Record<string, unknown>;
}

export function createContext(state: SimState, options: SimOptions): SimContext {
  const clock = new SimClock(state);
  return {
    state,
    clock,
    options,
    authorize(req, permission) {
      const header = req.headers.authorization ?? '';
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match?.[1]) throw new SimError(401, 'missing bearer token');
      const token = match[1];
      const record = state.tokens[token];
      if (!record) throw new SimError(401, 'unknown token');
      if (record.expiresAt <= clock.now()) throw new SimError(401, 'token expired');
      const credentials = state.credentials[record.clientId];
      if (!credentials) throw new SimError(401, 'credentials of this token no longer exist');
      if (!credentials.permissions.includes(permission)) {
        throw forbidden(`the role of these credentials lacks the permission ${permission}`);
      }
      return { credentials, token };
    },
    requireProject(projectId) {
      if (projectId !== state.projectId) throw new SimError(404, `project ${projectId} not found`);
    },
    newId: () => randomUUID(),
    newSecret: () => randomBytes(24).toString('base64url'),
  };
}
