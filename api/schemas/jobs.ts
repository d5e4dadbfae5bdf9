import { z } from 'zod';
import {
  CLOUD_PROVIDERS,
  JOB_ERROR_CODES,
  JOB_SORT_FIELDS,
  JOB_STATUSES,
  JobStatusInput,
  RESOURCE_TYPES,
  openEnum,
} from '../enums';
import { Timestamp, inNotIn, nullAsAbsent, pageOf, readerOf, record, sortsOf, tolerant } from './common';
import { VaultDocument } from './vaults';

/** A job's execution details as the service sends them: the simulator's model. */
export const JobExecutionDetailsDocument = record({
  jobId: z.string(),
  status: openEnum([...JOB_STATUSES, 'JOB_CANCELLED']),
  createdTime: Timestamp,
  // Null while a job is pending, or when it never ran (docs/service-interface.md §11): unknown, never "at 0".
  expectedStartTime: nullAsAbsent(Timestamp),
  startTime: nullAsAbsent(Timestamp),
  endTime: nullAsAbsent(Timestamp),
  durationSeconds: nullAsAbsent(z.number()),
  errorCode: openEnum(JOB_ERROR_CODES).optional(),
  statusMessage: z.string().optional(),
});
export type JobExecutionDetailsDocument = z.infer<typeof JobExecutionDetailsDocument>;
/** The runbooks read a job's ID, status, times, duration and error (steps/jobs.ts `summarize`). */
export const JobExecutionDetails = readerOf(JobExecutionDetailsDocument, ['expectedStartTime']);
export type JobExecutionDetails = z.infer<typeof JobExecutionDetails>;

const JobResourceDetailsDocument = record({
  id: z.string(),
  providerResourceId: z.string(),
  resourceName: z.string(),
  resourceType: openEnum(RESOURCE_TYPES),
  providerAccountId: z.string(),
  cloudProvider: openEnum(CLOUD_PROVIDERS),
  region: z.string(),
  sourceStorageSizeBytes: tolerant(z.number()),
});
/** The runbooks read a job's resource ID and type (which job is ours, steps/jobs.ts); the rest is tolerant. */
export const JobResourceDetails = readerOf(JobResourceDetailsDocument, [
  'providerResourceId',
  'resourceName',
  'providerAccountId',
  'cloudProvider',
  'region',
]);

const JobSnapshotDetailsDocument = record({
  pointInTime: Timestamp,
  id: z.string().optional(),
  expirationTime: Timestamp.optional(),
});
/** The runbooks read a job's snapshot ID and point in time; its expiration is tolerant. */
export const JobSnapshotDetails = readerOf(JobSnapshotDetailsDocument, ['expirationTime']);

const DestinationDetailsDocument = record({
  restoreAccountId: z.string(),
  providerAccountId: z.string(),
  cloudProvider: openEnum(CLOUD_PROVIDERS),
  region: z.string(),
  restoreResult: z.unknown().optional(),
});
/** The runbooks read a restore's account and result (which job is ours, steps/jobs.ts); the rest is tolerant. */
const DestinationDetails = readerOf(DestinationDetailsDocument, ['providerAccountId', 'cloudProvider', 'region']);

/**
 * A job's vault, when the record carries one. The backup-job look-up compares its ID (steps/jobs.ts
 * `findBackupJob`): the ID stays checked, the rest of the vault is tolerant.
 */
const JobVault = nullAsAbsent(
  readerOf(record(VaultDocument.partial().shape), [
    'vaultAccountId',
    'providerAccountId',
    'name',
    'region',
    'isManagedByEon',
    'vaultAttributes',
  ]),
);

/** The fields backup and restore jobs share, after their own (the execution details stay first), as sent. */
const SharedJobDocumentFields = {
  resourceDetails: nullAsAbsent(JobResourceDetailsDocument),
  snapshotDetails: nullAsAbsent(JobSnapshotDetailsDocument),
  vault: JobVault,
};
/** What the runbooks read of the fields both jobs share: `extend` replaces each in place, keeping the order. */
const SharedJobReaderFields = {
  jobExecutionDetails: JobExecutionDetails,
  resourceDetails: nullAsAbsent(JobResourceDetails),
  snapshotDetails: nullAsAbsent(JobSnapshotDetails),
};

/** A backup job as the service sends it: the simulator's model. */
export const BackupJobDocument = record({
  jobExecutionDetails: JobExecutionDetailsDocument,
  backupType: z.string(),
  ...SharedJobDocumentFields,
});
export type BackupJobDocument = z.infer<typeof BackupJobDocument>;
export const BackupJob = BackupJobDocument.extend(SharedJobReaderFields);
export type BackupJob = z.infer<typeof BackupJob>;

/** A restore job as the service sends it: the simulator's model. */
export const RestoreJobDocument = record({
  jobExecutionDetails: JobExecutionDetailsDocument,
  restoreType: z.string(),
  destinationDetails: DestinationDetailsDocument,
  ...SharedJobDocumentFields,
});
export type RestoreJobDocument = z.infer<typeof RestoreJobDocument>;
export const RestoreJob = RestoreJobDocument.extend({ ...SharedJobReaderFields, destinationDetails: DestinationDetails });
export type RestoreJob = z.infer<typeof RestoreJob>;

export const BackupJobBody = record({ job: BackupJob });
export const RestoreJobBody = record({ job: RestoreJob });
export const BackupJobPage = pageOf('jobs', BackupJob);
export const RestoreJobPage = pageOf('jobs', RestoreJob);

export const JobListInput = z.strictObject({
  filters: z
    .strictObject({
      jobId: inNotIn(z.string()).optional(),
      snapshotId: inNotIn(z.string()).optional(),
      status: inNotIn(JobStatusInput).optional(),
      providerResourceId: inNotIn(z.string()).optional(),
    })
    .optional(),
  sorts: sortsOf(z.enum(JOB_SORT_FIELDS)).optional(),
});
export type JobListInput = z.infer<typeof JobListInput>;
