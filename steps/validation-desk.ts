import { condition, setHandler } from '@temporalio/workflow';
import { drillValidationUpdate, type DrillValidationVerdict } from '../contracts';

export interface ValidationAnswer {
  result: 'pass' | 'fail';
  message?: string;
  answeredAt: string;
}

const MAX_MESSAGE = 1000;

/** One resource's state at the desk, as a continue-as-new carries it. */
export interface CarriedVerdict {
  resourceId: string;
  state: State;
}

type State =
  /** `snapshotId`: the point restored, when a verdict must name it (a search judges one point after another). */
  | { kind: 'waiting'; deadline: string; snapshotId?: string }
  | { kind: 'answered'; answer: ValidationAnswer }
  | { kind: 'timedOut'; deadline: string };

/** Refuses a verdict that is not one (an update's argument comes from outside); returns it typed. */
export function checkVerdictShape(verdict: unknown): DrillValidationVerdict {
  const given = verdict as Partial<DrillValidationVerdict> | null;
  if (typeof given?.resourceId !== 'string' || given.resourceId.trim() === '') {
    throw new Error('a verdict names the resource it is about (resourceId)');
  }
  if (given.result !== 'pass' && given.result !== 'fail') throw new Error("result must be 'pass' or 'fail'");
  if (given.snapshotId !== undefined && (typeof given.snapshotId !== 'string' || given.snapshotId.trim() === '')) {
    throw new Error('snapshotId, when given, names the restored snapshot');
  }
  if (given.message !== undefined && (typeof given.message !== 'string' || given.message.length > MAX_MESSAGE)) {
    throw new Error(`message must be text of at most ${MAX_MESSAGE} characters`);
  }
  return given as DrillValidationVerdict;
}

/**
 * Takes validation verdicts for a drill's restored resources through the `drillValidation` update. Only a resource
 * waiting for one takes it; anything else is refused by the validator, so a refused verdict leaves no trace in history.
 */
export class ValidationDesk {
  private readonly states = new Map<string, State>();

  /** `runNoun`: what errors call the run (a drill, a search). `carried`: the states of the run handing over. */
  constructor(
    private readonly workflowId: string,
    private readonly runNoun = 'drill',
    carried: CarriedVerdict[] = [],
  ) {
    for (const { resourceId, state } of carried) this.states.set(resourceId, state);
    setHandler(drillValidationUpdate, (verdict) => this.take(verdict), {
      validator: (verdict: DrillValidationVerdict) => this.check(verdict),
    });
  }

  /**
   * Waits for a verdict on `resourceId` until `deadline`; undefined when none came in time. With `snapshotId`, only a
   * verdict naming that snapshot is taken: a late one about a point judged before is refused.
   */
  async verdictOn(resourceId: string, deadline: Date, snapshotId?: string): Promise<ValidationAnswer | undefined> {
    const waiting = { kind: 'waiting' as const, deadline: deadline.toISOString() };
    this.states.set(resourceId, snapshotId === undefined ? waiting : { ...waiting, snapshotId });
    return this.awaitVerdict(resourceId, deadline);
  }

  /** Whether a verdict on `resourceId` was asked for, by this run or by the one that handed over to it. */
  asked(resourceId: string): boolean {
    return this.states.has(resourceId);
  }

  /** Waits on for a verdict asked for before a continue-as-new, to the same deadline. */
  async verdictAskedBefore(resourceId: string): Promise<ValidationAnswer | undefined> {
    const state = this.states.get(resourceId);
    if (state === undefined) throw new Error(`no verdict on ${resourceId} was asked for`);
    if (state.kind === 'answered') return state.answer;
    if (state.kind === 'timedOut') return undefined;
    return this.awaitVerdict(resourceId, new Date(state.deadline));
  }

  /** The desk's states, to carry over a continue-as-new (the constructor takes them back). */
  carried(): CarriedVerdict[] {
    return [...this.states].map(([resourceId, state]) => ({ resourceId, state }));
  }

  private async awaitVerdict(resourceId: string, deadline: Date): Promise<ValidationAnswer | undefined> {
    const answered = () => this.states.get(resourceId)?.kind === 'answered';
    await condition(answered, Math.max(1, deadline.getTime() - Date.now()));
    const state = this.states.get(resourceId);
    if (state?.kind === 'answered') return state.answer;
    this.states.set(resourceId, { kind: 'timedOut', deadline: deadline.toISOString() });
    return undefined;
  }

  /**
   * A verdict the drill took for this batch (./fan-out.ts checked it against what the batch reported waiting). One
   * that comes after the window closed is dropped: the resource has timed out already.
   */
  takeForwarded(verdict: DrillValidationVerdict & { answeredAt: string }): void {
    if (this.states.get(verdict.resourceId)?.kind !== 'waiting') return;
    const { resourceId, result, message, answeredAt } = verdict;
    const answer: ValidationAnswer = { result, ...(message ? { message } : {}), answeredAt };
    this.states.set(resourceId, { kind: 'answered', answer });
  }

  /** Resources waiting for a verdict now. */
  get waiting(): string[] {
    return [...this.states].filter(([, s]) => s.kind === 'waiting').map(([id]) => id);
  }

  private check(verdict: DrillValidationVerdict): void {
    const given = checkVerdictShape(verdict);
    const state = this.states.get(given.resourceId);
    const about = `resource ${given.resourceId} of ${this.runNoun} ${this.workflowId}`;
    if (state === undefined) {
      throw new Error(`${about} is not waiting for a validation verdict (not restored yet, or not validated this way)`);
    }
    if (state.kind === 'answered') {
      throw new Error(`${about} was validated already: ${state.answer.result} at ${state.answer.answeredAt}`);
    }
    if (state.kind === 'timedOut')
      throw new Error(`${about} stopped waiting at ${state.deadline}: validation timed out`);
    if (state.snapshotId !== undefined && given.snapshotId !== state.snapshotId) {
      const named = given.snapshotId === undefined ? 'names none' : `names ${given.snapshotId}`;
      throw new Error(`${about} waits for a verdict on snapshot ${state.snapshotId}; this one ${named} (--snapshot)`);
    }
  }

  private take(verdict: DrillValidationVerdict) {
    const answer: ValidationAnswer = {
      result: verdict.result,
      ...(verdict.message ? { message: verdict.message } : {}),
      answeredAt: new Date().toISOString(),
    };
    this.states.set(verdict.resourceId, { kind: 'answered', answer });
    return { taken: true as const, resourceId: verdict.resourceId, result: verdict.result };
  }
}
