import { z } from 'zod';
import { Timestamp, pageOf, readerOf, record, sortsOf } from './common';

/** A snapshot as the service sends it: the simulator's model. */
export const SnapshotDocument = record({
  id: z.string(),
  createdTime: Timestamp,
  resourceId: z.string(),
  projectId: z.string().optional(),
  pointInTime: Timestamp.optional(),
  jobId: z.string().optional(),
  vaultId: z.string().optional(),
  expirationTime: Timestamp.optional(),
  onHold: z.boolean().optional(),
  holdDescription: z.string().optional(),
});
export type SnapshotDocument = z.infer<typeof SnapshotDocument>;
/**
 * A snapshot as the runbooks read it: its ID, times, vault and expiration (DR drill recovery points, posture report,
 * input discovery); the rest is tolerant.
 */
export const Snapshot = readerOf(SnapshotDocument, ['resourceId', 'projectId', 'jobId', 'onHold', 'holdDescription']);
export type Snapshot = z.infer<typeof Snapshot>;

const DateOnly = z.iso.date({ error: 'must be a YYYY-MM-DD date' });
export const SnapshotListInput = z.strictObject({
  filters: z
    .strictObject({
      pointInTime: z.strictObject({ startDate: DateOnly.optional(), endDate: DateOnly.optional() }).optional(),
    })
    .optional(),
  sorts: sortsOf(z.literal('pointInTime')).optional(),
});
export type SnapshotListInput = z.infer<typeof SnapshotListInput>;

export const SnapshotBody = record({ snapshot: Snapshot });
export const SnapshotPage = pageOf('snapshots', Snapshot);
