import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Snapshot } from '../../api';
import { destinationIn } from '../../api/dialect';
import { isRecord } from '../../api/dialect/requests';
import { FailureType, type DrillValidationNotice, type NotifyingRun, type SentNotification } from '../../contracts';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { calling } from '../../runtime/failures';
import { notifyFromActivity, onlyTarget } from '../../steps/notifications';

/** A snapshot a drill may restore; `draw` says which of how many when it was drawn at random. */
export interface ChosenRecoveryPoint {
  id: string;
  pointInTime: string;
  vaultId?: string;
  draw?: { candidates: number; index: number };
}

const DAY_MS = 24 * 3600 * 1000;

/** What a snapshot holds, in time: its point in time, or when it was made where the service leaves that out. */
const capturedAt = (s: Snapshot) => s.pointInTime ?? s.createdTime;

export function recoveryPointActivities({ client, webhooks = [] }: ActivityDeps) {
  return {
    /**
     * The recovery point a drill restores: among the resource's snapshots captured in the `windowDays` before
     * `before` and not past their retention then, the newest (`latest`) or the one at `draw` (a fraction in [0, 1)
     * drawn by the workflow, so that a retry picks the same one from the same list). None: the window holds none.
     */
    async chooseRecoveryPoint(input: {
      resourceId: string;
      select: 'latest' | 'random';
      windowDays: number;
      before: string;
      draw?: number;
    }): Promise<ChosenRecoveryPoint | undefined> {
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
      return calling(activityInfo().attempt, async () => {
        const candidates: Snapshot[] = [];
        for await (const s of client.listSnapshots(input.resourceId, listing, { pageSize: 50 })) {
          if (!kept(s)) continue;
          if (input.select === 'latest') return pointOf(s);
          candidates.push(s);
        }
        // Newest first, whatever order the pages came in: index 0 is the newest.
        candidates.sort((a, b) => Date.parse(capturedAt(b)) - Date.parse(capturedAt(a)) || a.id.localeCompare(b.id));
        const index = Math.min(candidates.length - 1, Math.floor((input.draw ?? 0) * candidates.length));
        const drawn = candidates[index];
        return drawn && { ...pointOf(drawn), draw: { candidates: candidates.length, index } };
      });
    },

    /**
     * Sends drill.validation.requested for one restored resource: to the target named `target`, or to every target
     * that takes the event. A name no target has is a mistake in the drill's input, not worth a retry.
     */
    /** `onBehalfOf`: the drill, when a batch of it asks (./batch.ts). */
    async requestDrillValidation(input: {
      notice: DrillValidationNotice;
      target?: string;
      onBehalfOf?: NotifyingRun;
    }): Promise<SentNotification> {
      const targets = input.target === undefined ? webhooks : onlyTarget(webhooks, input.target);
      if (input.target !== undefined && targets.length === 0) {
        const known = webhooks.map((t) => t.name);
        throw ApplicationFailure.create({
          type: FailureType.InvalidInput,
          nonRetryable: true,
          message:
            `invalid input validation.notify: no webhook target named '${input.target}' on this worker ` +
            `(${known.length > 0 ? `targets: ${known.join(', ')}` : 'none configured'})`,
        });
      }
      // The input holds the destination in the neutral vocabulary; the validator looks for it at the service.
      const { restoredTo } = input.notice;
      const data = isRecord(restoredTo)
        ? { ...input.notice, restoredTo: destinationIn(await client.wireDialect(), restoredTo) }
        : input.notice;
      const run = input.onBehalfOf ? { onBehalfOf: input.onBehalfOf } : {};
      return notifyFromActivity(targets, { event: 'drill.validation.requested', data, ...run });
    },
  };
}

function pointOf(s: Snapshot): ChosenRecoveryPoint {
  return { id: s.id, pointInTime: capturedAt(s), ...(s.vaultId ? { vaultId: s.vaultId } : {}) };
}
