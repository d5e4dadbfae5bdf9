// Where a snapshot slot's time goes, from the batches' histories and the service's jobs: waiting for the grant, from
// the grant to the backup's start, the job itself, and from the job's end to the slot's release. A slot is held from
// its grant to its release; the service's cap counts only the job.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import { median } from '../measure';

export interface SlotTimes {
  /** Slots followed (one per backup started in a slot). */
  slots: number;
  /** Medians, in ms. */
  waitForGrant: number;
  /** The limiter's grant signal, sent to received. */
  grantDelivery: number;
  /** From a release reaching the limiter to its next grant sent. */
  releaseToNextGrant: number;
  grantToStarted: number;
  job: number;
  jobEndToRelease: number;
}

interface Lease {
  asked?: number;
  /** When the limiter sent the grant, and when the batch got it. */
  grantSent?: number;
  granted?: number;
  started?: number;
  jobId?: string;
  released?: number;
}

/**
 * The leases a signal or an activity names: several (`leaseIds`, or `grants` or `releases` of a lease each), or one
 * (`leaseId`).
 */
const leasesOf = (payloads: readonly Payload[] | null | undefined): string[] => {
  const first = payloads?.[0];
  if (!first) return [];
  const value = defaultPayloadConverter.fromPayload<{
    leaseId?: string;
    leaseIds?: string[];
    grants?: { leaseId: string }[];
    releases?: { leaseId: string }[];
  }>(first);
  const several = value?.leaseIds ?? (value?.grants ?? value?.releases)?.map((l) => l.leaseId);
  if (several) return several;
  return typeof value?.leaseId === 'string' ? [value.leaseId] : [];
};
const leaseOf = (payloads: readonly Payload[] | null | undefined): string | undefined => leasesOf(payloads)[0];
const RELEASES = ['releaseSlot', 'releaseSlots'];

const GRANTS = ['snapshotSlotGranted', 'snapshotSlotsGranted'];
const ASKS = ['requestSlot', 'requestSlots'];

/**
 * Follows every slot of the given batches (workflow IDs) and, in the limiter's current run, each grant; `jobEnds` is
 * each backup job's end (epoch ms) by job ID.
 */
export async function slotTimes(
  client: Client,
  batchIds: readonly string[],
  limiterId: string,
  jobEnds: ReadonlyMap<string, number>,
): Promise<SlotTimes> {
  const leases = new Map<string, Lease>();
  const lease = (id: string) => leases.get(id) ?? leases.set(id, {}).get(id) ?? {};
  for (const id of batchIds) {
    const { events } = await client.workflow.getHandle(id).fetchHistory();
    const scheduled = new Map<string, { type: string; lease?: string }>();
    for (const e of events ?? []) {
      const at = e.eventTime ? tsToMs(e.eventTime) : NaN;
      const s = e.activityTaskScheduledEventAttributes;
      if (s) {
        const type = s.activityType?.name ?? '';
        const leaseId = leaseOf(s.input?.payloads);
        scheduled.set(String(e.eventId), { type, lease: leaseId });
        if (type === 'requestSnapshotSlot') for (const id of leasesOf(s.input?.payloads)) lease(id).asked ??= at;
      }
      const done = e.activityTaskCompletedEventAttributes;
      const of = done ? scheduled.get(String(done.scheduledEventId)) : undefined;
      if (done && of?.type === 'startBackupInSlot' && of.lease) {
        const result = done.result?.payloads?.[0];
        const started = result ? defaultPayloadConverter.fromPayload<{ kind: string; jobId?: string }>(result) : null;
        if (started?.kind === 'started') Object.assign(lease(of.lease), { started: at, jobId: started.jobId });
      }
      const signalled = e.workflowExecutionSignaledEventAttributes;
      if (GRANTS.includes(signalled?.signalName ?? '')) {
        for (const leaseId of leasesOf(signalled?.input?.payloads)) lease(leaseId).granted = at;
      }
      const sent = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
      if (RELEASES.includes(sent?.signalName ?? '')) {
        for (const leaseId of leasesOf(sent?.input?.payloads)) lease(leaseId).released = at;
      }
      if (ASKS.includes(sent?.signalName ?? '')) {
        for (const leaseId of leasesOf(sent?.input?.payloads)) lease(leaseId).asked ??= at;
      }
    }
  }
  // The limiter's side: when it got each release and sent each grant.
  const { events } = await client.workflow.getHandle(limiterId).fetchHistory();
  const releases: number[] = [];
  const gaps: number[] = [];
  for (const e of events ?? []) {
    const at = e.eventTime ? tsToMs(e.eventTime) : NaN;
    if (RELEASES.includes(e.workflowExecutionSignaledEventAttributes?.signalName ?? '')) releases.push(at);
    const sent = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
    const sentLeases = leasesOf(sent?.input?.payloads);
    if (!GRANTS.includes(sent?.signalName ?? '') || sentLeases.length === 0) continue;
    for (const sentLease of sentLeases) {
      const known = leases.get(sentLease);
      if (known) known.grantSent = at;
    }
    const lastRelease = releases.at(-1);
    if (lastRelease !== undefined) gaps.push(at - lastRelease);
    releases.length = 0;
  }
  const full = [...leases.values()].filter(
    (l): l is Required<Lease> =>
      l.asked !== undefined && l.granted !== undefined && l.started !== undefined && l.released !== undefined,
  );
  const endOf = (l: Required<Lease>) => jobEnds.get(l.jobId) ?? NaN;
  return {
    slots: full.length,
    waitForGrant: median(full.map((l) => l.granted - l.asked)),
    grantDelivery: median(full.filter((l) => l.grantSent !== undefined).map((l) => l.granted - (l.grantSent ?? NaN))),
    releaseToNextGrant: median(gaps),
    grantToStarted: median(full.map((l) => l.started - l.granted)),
    job: median(full.map((l) => endOf(l) - l.started)),
    jobEndToRelease: median(full.map((l) => l.released - endOf(l))),
  };
}
