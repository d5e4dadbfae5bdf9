import { condition, setHandler } from '@temporalio/workflow';
import { drillValidationUpdate, type DrillValidationVerdict } from './contract';

export interface ValidationAnswer {
  result: 'pass' | 'fail';
  message?: string;
  answeredAt: string;
}

const MAX_MESSAGE = 1000;

type State =
  | { kind: 'waiting'; deadline: string }
  | { kind: 'answered'; answer: ValidationAnswer }
  | { kind: 'timedOut'; deadline: string };

/** Refuses a verdict that is not one (an update's argument comes from outside); returns it typed. */
export function checkVerdictShape(verdict: unknown): DrillValidationVerdict {
  const given = verdict as Partial<DrillValidationVerdict> | null;
  if (typeof given?.resourceId !== 'string' || given.resourceId.trim() === '') {
    throw new Error('a verdict names the resource it is about (resourceId)');
  }
  if (given.result !== 'pass' && given.result !== 'fail') throw new Error("result must be 'pass' or 'fail'");
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

  constructor(private readonly workflowId: string) {
    setHandler(drillValidationUpdate, (verdict) => this.take(verdict), {
      validator: (verdict: DrillValidationVerdict) => this.check(verdict),
    });
  }

  /** Waits for a verdict on `resourceId` until `deadline`; undefined when none came in time. */
  async verdictOn(resourceId: string, deadline: Date): Promise<ValidationAnswer | undefined> {
    this.states.set(resourceId, { kind: 'waiting', deadline: deadline.toISOString() });
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
    const about = `resource ${given.resourceId} of drill ${this.workflowId}`;
    if (state === undefined) {
      throw new Error(`${about} is not waiting for a validation verdict (not restored yet, or not validated this way)`);
    }
    if (state.kind === 'answered') {
      throw new Error(`${about} was validated already: ${state.answer.result} at ${state.answer.answeredAt}`);
    }
    if (state.kind === 'timedOut')
      throw new Error(`${about} stopped waiting at ${state.deadline}: validation timed out`);
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
