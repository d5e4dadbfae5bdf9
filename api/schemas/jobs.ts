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
import { Timestamp, inNotIn, nullAsAbsent, pageOf, record, sortsOf, tolerant } from './common';
import { Vault } from './vaults';

export const JobExecutionDetails = record({
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
export type JobExecutionDetails = z.infer<typeof JobExecutionDetails>;

export const JobResourceDetails = record({
  id: z.string(),
  providerResourceId: z.string(),
  resourceName: z.string(),
  resourceType: openEnum(RESOURCE_TYPES),
  providerAccountId: z.string(),
  cloudProvider: openEnum(CLOUD_PROVIDERS),
  region: z.string(),
  // No runbook reads it.
  sourceStorageSizeBytes: tolerant(z.number()),
});

export const JobSnapshotDetails = record({
  pointInTime: Timestamp,
  id: z.string().optional(),
  expirationTime: Timestamp.optional(),
});

// No runbook reads a job's vault.
const JobVault = tolerant(Vault.partial());

export const BackupJob = record({
  jobExecutionDetails: JobExecutionDetails,
  backupType: z.string(),
  resourceDetails: nullAsAbsent(JobResourceDetails),
  snapshotDetails: nullAsAbsent(JobSnapshotDetails),
  vault: JobVault,
});
export type BackupJob = z.infer<typeof BackupJob>;

export const RestoreJob = record({
  jobExecutionDetails: JobExecutionDetails,
  restoreType: z.string(),
  destinationDetails: record({
    restoreAccountId: z.string(),
    providerAccountId: z.string(),
    cloudProvider: openEnum(CLOUD_PROVIDERS),
    region: z.string(),
    restoreResult: z.unknown().optional(),
  }),
  resourceDetails: nullAsAbsent(JobResourceDetails),
  snapshotDetails: nullAsAbsent(JobSnapshotDetails),
  vault: JobVault,
});
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
