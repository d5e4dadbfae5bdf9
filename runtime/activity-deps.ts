import type { BackupServiceClient } from '../api';
import type { CredentialsFile } from './credentials-file';
import type { TimestampAuthorityConfig } from './config/evidence';
import type { EvidenceKey } from './evidence-key';
import type { WebhookTarget } from './webhooks';

/** One look at an action request by an approval activity: the worker keeps the waits in flight (worker/approval-gauges.ts). */
export interface ApprovalLook {
  requestId: string;
  /** The workflow type of the run that waits (a runbook name: a bounded label). */
  runbook: string;
  status: string;
  createdTime?: string;
  approvalExpirationTime?: string | null;
  /** The service's clock at the look, in ms (the request's times are on it). */
  serviceNowMs: number;
}

/** Why a resource is in a rotating drill's run (history/rotation.ts). */
export type RotationReason = 'failed-last' | 'never-drilled' | 'never-passed' | 'oldest-pass';

/**
 * A drill's rotation as its evidence says: the next `perRun` resources of `scope` to drill, each with why, and the
 * median gap between the drill's last runs (how often it runs, when no schedule says). The worker reads the sealed
 * reports (history/ sits above runbooks/, which may not import it) and hands this to the activities.
 */
export type NextToDrill = (input: {
  drill: string;
  scope: readonly string[];
  withinDays: number;
  perRun: number;
  now: Date;
}) => Promise<{
  picked: { resourceId: string; reason: RotationReason; lastPassAt?: string }[];
  recentRunGapMs?: number;
}>;

/** What activities need from the worker: a client, and where to put files. Credentials stay in here, never in history. */
export interface ActivityDeps {
  client: BackupServiceClient;
  /** Directory for exports and reports. */
  outputDir: string;
  /** File the worker reads its client secret from, when it uses one (rotations write it). */
  credentials?: CredentialsFile;
  /** Seals drill reports (runtime/evidence-seal.ts). */
  evidenceKey: EvidenceKey;
  /** Dates every seal and attestation (runtime/evidence-timestamps.ts); none: they carry no token. */
  timestampAuthority?: TimestampAuthorityConfig;
  /** Where notifications go; none: the notify activity returns at once. */
  webhooks?: readonly WebhookTarget[];
  /**
   * How a wait the workflow schedules as a watch looks (RUNBOOKS_WAIT_LOOKS): `watch` (the default), every look inside
   * one attempt that sleeps between looks; `attempts`, one look per attempt, the server's retry bringing the next, as
   * before watches (one activity task per look; kept to compare them in bench/waiting).
   */
  waitLooks?: 'watch' | 'attempts';
  /** Told of every look at an action request (the worker's approval gauges); none: nobody is told. */
  onApprovalLook?: (look: ApprovalLook) => void;
  /** A rotating drill's next resources, from the output folder's reports; none: a rotating drill is refused. */
  nextToDrill?: NextToDrill;
}
