import type { BackupServiceClient, Snapshot } from '../api';

const DAY_MS = 24 * 3600 * 1000;

/** What a snapshot holds, in time: its point in time, or when it was made where the service leaves that out. */
export const capturedAt = (s: Snapshot): string => s.pointInTime ?? s.createdTime;

/** Newest first; snapshots of the same moment by ID, so that every attempt sees one order. */
export const newestFirst = (a: Snapshot, b: Snapshot): number =>
  Date.parse(capturedAt(b)) - Date.parse(capturedAt(a)) || a.id.localeCompare(b.id);

/**
 * A resource's snapshots captured in the `windowDays` before `before` and not past their retention then, as the
 * service lists them (newest first, by its sort; a caller that needs the order for sure sorts with `newestFirst`).
 */
export async function* snapshotsInWindow(
  client: BackupServiceClient,
  input: { resourceId: string; windowDays: number; before: string },
): AsyncGenerator<Snapshot> {
  const before = Date.parse(input.before);
  const from = before - input.windowDays * DAY_MS;
  const kept = (s: Snapshot) => {
    const at = Date.parse(capturedAt(s));
    const expires = s.expirationTime === undefined ? Infinity : Date.parse(s.expirationTime);
    return at >= from && at < before && expires > before;
  };
  const listing = {
    // The filter's dates are whole days, inclusive: the exact bounds are checked on each snapshot.
    filters: {
      pointInTime: { startDate: new Date(from).toISOString().slice(0, 10), endDate: input.before.slice(0, 10) },
    },
    sorts: [{ field: 'pointInTime' as const, order: 'DESC' as const }],
  };
  for await (const s of client.listSnapshots(input.resourceId, listing, { pageSize: 50 })) if (kept(s)) yield s;
}
