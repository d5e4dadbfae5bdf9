import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Snapshot } from '../../api';
import { destinationIn } from '../../api/dialect';
import { isRecord } from '../../api/dialect/requests';
import { FailureType, type DrillValidationNotice, type NotifyingRun, type SentNotification } from '../../contracts';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { calling } from '../../runtime/failures';
import { notifyFromActivity, onlyTarget } from '../../steps/notifications';
import { capturedAt, newestFirst, snapshotsInWindow } from '../../steps/snapshot-window';

/** A snapshot a drill may restore; `draw` says which of how many when it was drawn at random. */
export interface ChosenRecoveryPoint {
  id: string;
  pointInTime: string;
  vaultId?: string;
  draw?: { candidates: number; index: number };
}

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
      return calling(activityInfo().attempt, async () => {
        const window = snapshotsInWindow(client, input);
        if (input.select === 'latest') {
          for await (const s of window) return pointOf(s);
          return undefined;
        }
        const candidates: Snapshot[] = [];
        for await (const s of window) candidates.push(s);
        // Newest first, whatever order the pages came in: index 0 is the newest.
        candidates.sort(newestFirst);
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
