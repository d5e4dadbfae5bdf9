import type { BackupServiceClient } from '../api';
import type { CredentialsFile } from './credentials-file';
import type { EvidenceKey } from './evidence-key';
import type { WebhookTarget } from './webhooks';

/** What activities need from the worker: a client, and where to put files. Credentials stay in here, never in history. */
export interface ActivityDeps {
  client: BackupServiceClient;
  /** Directory for exports and reports. */
  outputDir: string;
  /** File the worker reads its client secret from, when it uses one (rotations write it). */
  credentials?: CredentialsFile;
  /** Seals drill reports (runtime/evidence-seal.ts). */
  evidenceKey: EvidenceKey;
  /** Where notifications go; none: the notify activity returns at once. */
  webhooks?: readonly WebhookTarget[];
}
