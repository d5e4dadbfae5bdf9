import { patched, workflowInfo } from '@temporalio/workflow';
import type { DrillReport, DrillResourceResult } from './report';
import { ValidationDesk } from '../../steps/validation-desk';
import { summarize } from './verdicts';
import { leanHistory, notify, resend, serviceCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { DrDrillInput, type DrDrillResult, type DrillInput, drDrillContract, type DrillPhase } from './contract';
import { drillInLanes, resourceDriller } from './drill-one';
import { drillFannedOut, type FanOutState } from './fan-out';
import { FAN_OUT_PATCH, RECOVERY_POINT_PATCH } from './patches';
import { timestampsLater, timestampsOutcome } from './timestamps';

const service = serviceCalls<Activities>();

type WrittenReport = Awaited<ReturnType<Activities['writeDrillReport']>>;

/**
 * A disaster-recovery drill: restore a recovery point of each resource, validate it, and write the evidence. Drills
 * fan out to batches (./fan-out.ts); `carried` is what a drill hands to its next run when it continues as new. Runs
 * from before fan-out drill every resource here, in lanes.
 */
export async function drDrill(raw: DrDrillInput, carried?: FanOutState): Promise<DrDrillResult> {
  // A bad input fails the run at once, before any command, whichever way the drill goes.
  const input = parseInput(DrDrillInput, raw);
  if (carried !== undefined || patched(FAN_OUT_PATCH)) return drillFannedOut(raw, input, carried);
  return drillInOneRun(input);
}

/** The drill of runs from before fan-out: every resource in this workflow, in lanes. */
async function drillInOneRun(input: DrillInput): Promise<DrDrillResult> {
  const tracker = new RunbookTracker(drDrillContract);
  const startedAt = new Date();
  const { workflowId } = workflowInfo();
  const selection = patched(RECOVERY_POINT_PATCH) ? input.recoveryPoint : ({ select: 'fresh' } as const);
  const desk = new ValidationDesk(workflowId);
  const drillOne = resourceDriller({
    input,
    selection,
    startedAt,
    drillWorkflowId: workflowId,
    tracker,
    desk,
    patched,
    onWaiting: (ids) =>
      tracker.waitingFor(
        ids.length === 0
          ? undefined
          : `validation of ${ids.join(', ')}: runbooks drill validate ${workflowId} --resource <id> --result pass|fail`,
        ids,
      ),
  });

  tracker.phase('selecting resources');
  const resources = await service.resolveResources(input.resources);
  const results: DrillResourceResult[] = new Array<DrillResourceResult>(resources.length);
  let done = 0;
  tracker.phase('drilling', { progress: { done, total: resources.length, unit: 'resources' } });
  const finished = (index: number, result: DrillResourceResult) => {
    results[index] = result;
    tracker.progress(++done, resources.length, 'resources');
  };

  const validating = await drillInLanes(resources, input.parallelism, drillOne, { finished });
  await Promise.all(validating);

  tracker.phase('writing report');
  const summary = summarize(results);
  const report: DrillReport = {
    name: input.name,
    workflowId,
    runId: workflowInfo().runId,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    targets: input.targets,
    resources: results,
    summary,
  };
  // The report's activity sends drill.passed or drill.failed itself (see `leanHistory`).
  const inline = leanHistory();
  const written = await service.writeDrillReport({ report, ...(inline ? { announce: true } : {}) });
  await timestampsLater(written.timestamps?.pending);
  return reportWritten(input, tracker, { summary, written, inline });
}

/** The drill's result once its report is written; drill.passed or drill.failed goes out unless the activity sent it. */
function reportWritten(
  input: DrillInput,
  tracker: RunbookTracker<DrillPhase>,
  { summary, written, inline }: { summary: DrDrillResult['summary']; written: WrittenReport; inline: boolean },
): DrDrillResult {
  const { notified, timestamps, ...paths } = written;
  tracker.phase('completed', { detail: `${summary.verdict}: ${summary.passed}/${summary.total} passed` });
  if (inline) resend(notified);
  else {
    notify({
      event: summary.verdict === 'PASS' ? 'drill.passed' : 'drill.failed',
      data: { name: input.name, ...summary, report: paths },
    });
  }
  return { report: paths, summary, ...timestampsOutcome(timestamps) };
}
