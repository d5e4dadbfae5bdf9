import { z } from 'zod';
import { mdCode, ConfigError, type Env, parseEnv, type SettingDoc, text } from './env';

/** Worker Versioning (RUNBOOKS_DEPLOYMENT_NAME, …); off by default, and locally. */

export interface VersioningConfig {
  deploymentName: string;
  /** Unset: the worker derives it from its workflow bundle (worker/versioning.ts). */
  buildId?: string;
  mode: VersioningMode;
}

/**
 * `auto-upgrade`: runs move to the newest build, which makes itself current at start (workers replaced in place, as
 * compose does). `pinned`: runs finish on the build that started them, and a release is promoted by hand (old workers
 * stay until their runs drain, as a rainbow deployment keeps them).
 */
export const VERSIONING_MODES = ['pinned', 'auto-upgrade'] as const;
export type VersioningMode = (typeof VERSIONING_MODES)[number];
/** The mode that strands no run whichever way the workers are replaced (docs/operations/deploy.md, "Upgrades"). */
export const DEFAULT_VERSIONING_MODE: VersioningMode = 'auto-upgrade';

// Temporal joins the two as `<deploymentName>.<buildId>` in its older APIs and UI, so a name holds no dot.
const VersioningEnv = z.object({
  RUNBOOKS_DEPLOYMENT_NAME: text
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/, 'must be letters, digits, - or _ (no dots), e.g. backup-runbooks')
    .optional(),
  RUNBOOKS_BUILD_ID: text
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be letters, digits, ., - or _, e.g. 2026.11.1 or a git sha')
    .optional(),
  RUNBOOKS_VERSIONING: z.enum(VERSIONING_MODES, { error: "must be 'pinned' or 'auto-upgrade'" }).optional(),
});

/** The worker's deployment version, or undefined when it is unversioned (no RUNBOOKS_DEPLOYMENT_NAME). */
export function loadVersioningConfig(env: Env = process.env): VersioningConfig | undefined {
  const e = parseEnv(VersioningEnv, env);
  if (e.RUNBOOKS_DEPLOYMENT_NAME === undefined) {
    const orphans = (['RUNBOOKS_BUILD_ID', 'RUNBOOKS_VERSIONING'] as const).filter((name) => e[name] !== undefined);
    if (orphans.length > 0) {
      throw new ConfigError(orphans.map((variable) => ({ variable, message: 'needs RUNBOOKS_DEPLOYMENT_NAME' })));
    }
    return undefined;
  }
  return {
    deploymentName: e.RUNBOOKS_DEPLOYMENT_NAME,
    buildId: e.RUNBOOKS_BUILD_ID,
    mode: e.RUNBOOKS_VERSIONING ?? DEFAULT_VERSIONING_MODE,
  };
}

/** docs/configuration.md, "Worker Versioning". */
export const VERSIONING_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_DEPLOYMENT_NAME',
    default: 'unset: an unversioned worker',
    meaning:
      "The Worker Deployment the worker is a version of (letters, digits, `-` and `_`). The CLI's `deployment` " +
      'commands read it too',
  },
  {
    name: 'RUNBOOKS_BUILD_ID',
    default: "the first 12 hex digits of the bundle's hash",
    meaning: "This release's build ID (letters, digits, `.`, `-` and `_`); needs `RUNBOOKS_DEPLOYMENT_NAME`",
  },
  {
    name: 'RUNBOOKS_VERSIONING',
    default: mdCode(DEFAULT_VERSIONING_MODE),
    meaning:
      '`auto-upgrade` (runs move to the new build at their next step) or `pinned` (a run finishes on the build that ' +
      'started it); needs the name',
  },
];
