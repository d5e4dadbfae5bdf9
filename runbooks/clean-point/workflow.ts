import { workflowInfo } from '@temporalio/workflow';
import { heartbeatingCalls, resend, serviceCalls, waitingCalls } from '../../runtime/calls';
import { RunbookTracker, parseInput } from '../../runtime/tracker';
import type { Activities } from '../activities';
import { ValidationDesk } from '../../steps/validation-desk';
import type { Candidate, SearchedResource } from './activities';
import { linearScanProbes, nextProbe, probeBound, searchBracket, searchOutcome, type Verdict } from './bisect';
import {
  CleanPointInput,
  cleanPointContract,
  type CleanPoint,
  type CleanPointResult,
  type ExaminedPoint,
  type RestoreValidation,
} from './contract';

const service = serviceCalls<Activities>();
const heartbeating = heartbeatingCalls<Activities>();
const wait = waitingCalls<Activities>();

type Input = ReturnType<typeof parseInput<typeof CleanPointInput>>;
type Tracker = RunbookTracker<(typeof cleanPointContract.phases)[number]>;

/** A point judged, or why it could not be: the search then stops where it is, with what it knows. */
type Probed = { examined: ExaminedPoint } | { stopped: string };

/**
 * Finds a resource's last clean recovery point: the newest snapshot of the window that passes the check, found by
 * bisection (./bisect.ts). By a check, each point is judged by queries on the snapshot, restoring nothing; by a
 * validation, each point is restored and a validator's verdict awaited. Every judgement is in history, so a search
 * that resumes after a crash never asks a point again.
 */
export async function cleanPoint(raw: CleanPointInput): Promise<CleanPointResult> {
  const input = parseInput(CleanPointInput, raw);
  const tracker: Tracker = new RunbookTracker(cleanPointContract, { resource: input.resourceId });
  const before = input.before ?? new Date().toISOString();
  // Registered before anything waits, so that a verdict is never refused for want of a handler.
  const desk = input.validation ? new ValidationDesk(workflowInfo().workflowId, 'search') : undefined;

  tracker.phase('listing recovery points');
  const judgedBy = input.check ?? input.validation;
  if (!judgedBy) throw new Error('a search without a check or a validation'); // refused by the schema
  const { candidates, checkSha256, resource } = await service.cleanPointCandidates({
    resourceId: input.resourceId,
    windowDays: input.windowDays,
    before,
    check: judgedBy,
  });
  const n = candidates.length;
  const bound = probeBound(n);
  const budget = input.validation ? (input.validation.maxRestores ?? bound) : bound;

  const verdicts = new Map<number, Verdict>();
  const examined: ExaminedPoint[] = [];
  let stopped: string | undefined;
  for (let index = nextProbe(n, verdicts); index !== undefined; index = nextProbe(n, verdicts)) {
    const point = candidates[index];
    if (!point) break;
    const where = `${point.snapshotId} (${point.pointInTime}), ${index} behind the newest of ${n}`;
    const progress = { done: examined.length, total: Math.min(bound, budget), unit: 'points (at most)' };
    let probed: Probed;
    if (input.check) {
      tracker.phase('checking recovery points', { progress, detail: `checking ${where}` });
      const { verdict, queries } = await heartbeating.checkRecoveryPoint({
        snapshotId: point.snapshotId,
        check: input.check,
        restoreAccountId: input.restoreAccountId,
      });
      probed = { examined: { index, ...point, verdict, queries } };
    } else if (examined.length >= budget) {
      probed = { stopped: `the budget of ${budget} restores was spent before the search was done` };
    } else {
      const validation = input.validation as RestoreValidation;
      tracker.phase('restoring and validating points', { progress, detail: `restoring ${where}` });
      const searched = { validation, desk: desk as ValidationDesk, tracker, resource, candidates: n };
      probed = await restoreAndValidate(input, searched, { index, ...point });
    }
    if ('stopped' in probed) {
      stopped = probed.stopped;
      break;
    }
    verdicts.set(index, probed.examined.verdict);
    examined.push(probed.examined);
  }

  const idOf = (index: number) => candidates[index]?.snapshotId ?? String(index);
  const checkName = judgedBy.name;
  const by = input.check ? 'queries' : 'restores';
  const queriesPerPoint = input.check?.queries.length ?? 0;
  const common = {
    resourceId: input.resourceId,
    check: { name: checkName, sha256: checkSha256, by },
    window: { days: input.windowDays, before, candidates: n },
    examined,
    queries: { run: examined.reduce((sum, e) => sum + e.queries.length, 0), linearScan: 0, bound: 0 },
  } as const;
  const restores = (linearScan: number) =>
    input.validation ? { restores: { run: examined.length, budget, linearScan, bound } } : {};

  if (stopped !== undefined) {
    const bracket = searchBracket(n, verdicts);
    const named = (index: number | undefined) => (index === undefined ? undefined : { snapshotId: idOf(index), index });
    const oldestFailed = named(bracket.oldestFailed);
    const newestPassed = named(bracket.newestPassed);
    const verdict = `search stopped: ${stopped}; ${bracketText(bracket, idOf, checkName)}`;
    tracker.phase('completed', { detail: verdict });
    return {
      ...common,
      clean: null,
      verdict,
      nonMonotone: [],
      ...restores(0),
      stopped: {
        reason: stopped,
        bracket: { ...(oldestFailed ? { oldestFailed } : {}), ...(newestPassed ? { newestPassed } : {}) },
      },
    };
  }

  const outcome = searchOutcome(n, verdicts);
  const clean = outcome.clean === 'none' ? null : pointAt(candidates, outcome.clean);
  const verdict = clean
    ? `clean as of ${checkName}: ${clean.snapshotId} (${clean.pointInTime}), ${clean.index} behind the newest`
    : n === 0
      ? `no recovery point in the ${input.windowDays} days before ${before}`
      : `none of the ${n} recovery points in the window is clean as of ${checkName}`;
  tracker.phase('completed', { detail: verdict });
  const linearScan = linearScanProbes(n, outcome.clean === 'none' ? n : outcome.clean);
  return {
    ...common,
    clean,
    verdict,
    nonMonotone: outcome.nonMonotone.map((f) => ({ passed: idOf(f.passed), failedOlder: idOf(f.failedOlder) })),
    queries: { run: common.queries.run, linearScan: linearScan * queriesPerPoint, bound: bound * queriesPerPoint },
    ...restores(linearScan),
  };
}

/**
 * Restores one point to the validation's destination and asks for a verdict on it (drill.validation.requested,
 * answered with `runbooks drill validate`), waiting up to the window. A restore that needs approval, fails, or gets
 * no verdict in time judges nothing: the search stops there.
 */
async function restoreAndValidate(
  input: Input,
  searched: {
    validation: RestoreValidation;
    desk: ValidationDesk;
    tracker: Tracker;
    resource: SearchedResource;
    candidates: number;
  },
  point: Candidate & { index: number },
): Promise<Probed> {
  const { validation, desk, tracker, resource } = searched;
  const { resourceId, restoreAccountId } = input;
  const { destination } = validation;
  const started = await service.startRestore({
    resourceId,
    snapshotId: point.snapshotId,
    kind: validation.restoreKind,
    bucket: { destination, restoreAccountId },
    files: { destination, files: validation.files, restoreAccountId },
  });
  if (started.kind !== 'started') {
    // A search does not wait days for reviewers, as a drill does not.
    await service.withdrawRequest(started.requestId);
    return { stopped: `the restore of ${point.snapshotId} needs approval (request ${started.requestId} withdrawn)` };
  }
  tracker.phase('restoring and validating points', { ids: { jobId: started.jobId } });
  const job = await wait.checkRestoreJob(started.jobId);
  if (!job.succeeded || job.outcome === 'PARTIAL') {
    const code = job.errorCode ? ` ${job.errorCode}` : '';
    return { stopped: `the restore of ${point.snapshotId} ended ${job.status}${code}: ${job.statusMessage ?? ''}` };
  }

  const requestedAt = new Date();
  const deadline = new Date(requestedAt.getTime() + validation.windowHours * 3600 * 1000);
  const { workflowId } = workflowInfo();
  const sent = await service.requestDrillValidation({
    notice: {
      name: validation.name,
      resourceId,
      resourceName: resource.resourceName,
      resourceType: resource.resourceType,
      restoreJobId: started.jobId,
      restoredTo: destination,
      recoveryPoint: { snapshotId: point.snapshotId, pointInTime: point.pointInTime },
      deadline: deadline.toISOString(),
      answerWith:
        `runbooks drill validate ${workflowId} --resource ${resourceId} --snapshot ${point.snapshotId} ` +
        '--result pass|fail',
      search: { check: validation.name, index: point.index, candidates: searched.candidates },
    },
    ...(validation.notify ? { target: validation.notify } : {}),
  });
  resend(sent, validation.notify);
  const answering = desk.verdictOn(resourceId, deadline, point.snapshotId);
  tracker.phase('restoring and validating points', {
    awaitingVerdict: desk.waiting,
    waitingFor: `a verdict on ${point.snapshotId} restored by job ${started.jobId}, until ${deadline.toISOString()}`,
  });
  const answer = await answering;
  tracker.phase('restoring and validating points', { awaitingVerdict: [] });
  if (!answer) {
    return { stopped: `no verdict on ${point.snapshotId} within ${validation.windowHours} h` };
  }
  return {
    examined: {
      ...point,
      verdict: answer.result,
      queries: [],
      validation: {
        restoreJobId: started.jobId,
        answeredAt: answer.answeredAt,
        ...(answer.message ? { message: answer.message } : {}),
      },
    },
  };
}

/** What a stopped search knows, in words. */
function bracketText(
  bracket: ReturnType<typeof searchBracket>,
  idOf: (index: number) => string,
  checkName: string,
): string {
  const passed =
    bracket.newestPassed === undefined
      ? 'no point checked passed'
      : `${idOf(bracket.newestPassed)} is clean as of ${checkName}`;
  const failed =
    bracket.oldestFailed === undefined
      ? 'none failed'
      : `the last clean point is older than ${idOf(bracket.oldestFailed)}`;
  return `${passed}, ${failed}`;
}

/** The candidate at `index`, with how far it is behind the newest of the window. */
function pointAt(candidates: readonly Candidate[], index: number): CleanPoint | null {
  const found = candidates[index];
  const newest = candidates[0];
  if (!found || !newest) return null;
  const seconds = (Date.parse(newest.pointInTime) - Date.parse(found.pointInTime)) / 1000;
  return { ...found, index, behindNewest: { points: index, seconds } };
}
