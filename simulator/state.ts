import type { SimModule, SimOptions } from './context';
import type { SimState } from './model';
import { ALL_PERMISSIONS } from './permissions';
import { Random } from './random';

export const DEFAULT_JOBS_CONFIG = {
  backupSeconds: 30,
  restoreSeconds: 45,
  querySeconds: 3,
  maxConcurrentBackups: 5,
  outcomes: {},
};

/** A fresh, deterministic state for a seed: the bootstrap credentials plus what each module seeds. */
export function createState(options: SimOptions, modules: readonly SimModule[]): SimState {
  const random = new Random(options.seed);
  const state: SimState = {
    projectId: random.uuid(),
    seed: options.seed,
    clockOffsetMs: 0,
    credentials: {
      [options.bootstrapClientId]: {
        clientId: options.bootstrapClientId,
        clientSecret: options.bootstrapClientSecret,
        permissions: [...ALL_PERMISSIONS],
        email: 'runbooks@example.com',
        name: 'Runbooks bootstrap client',
      },
    },
    tokens: {},
    roles: {},
    idps: {},
    idpGroups: {},
    policies: {},
    actionRequests: {},
    sourceAccounts: {},
    restoreAccounts: {},
    vaults: {},
    resources: {},
    snapshots: {},
    backupJobs: {},
    restoreJobs: {},
    queries: {},
    jobsConfig: { ...DEFAULT_JOBS_CONFIG, outcomes: {} },
  };
  for (const module of modules) module.seed?.(state, random, options);
  return state;
}
