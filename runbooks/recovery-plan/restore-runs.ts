import { Context } from '@temporalio/activity';
import { runStatus } from '../../runtime/run-status';
import type { ApprovalGatedRestoreResult } from '../approval-gated-restore/contract';

/** A plan's restore run that has closed: how, and its result when it completed. */
export interface ClosedRestore {
  workflowId: string;
  status: string;
  result?: ApprovalGatedRestoreResult;
}

export function planRestoreActivities() {
  return {
    /**
     * The restore runs among these that have closed, with their results: a plan asks after the restores an earlier
     * run of it started, whose ends it cannot await (one terminated from outside never tells its end).
     */
    async closedPlanRestores(input: { workflowIds: string[] }): Promise<ClosedRestore[]> {
      const temporal = Context.current().client;
      const closed = await Promise.all(
        input.workflowIds.map(async (workflowId): Promise<ClosedRestore | undefined> => {
          const status = await runStatus(temporal, workflowId);
          if (status === 'RUNNING') return undefined;
          if (status !== 'COMPLETED') return { workflowId, status };
          const result = (await temporal.workflow.getHandle(workflowId).result()) as ApprovalGatedRestoreResult;
          return { workflowId, status, result };
        }),
      );
      return closed.filter((c) => c !== undefined);
    },
  };
}
