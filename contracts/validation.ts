// A verdict from outside on a restored resource: what `runbooks drill validate` sends to a drill, or to a search for
// the last clean point that restores each point it probes.
import { defineUpdate } from '@temporalio/workflow';

/** A validation verdict for one restored resource, from `runbooks drill validate`. */
export interface DrillValidationVerdict {
  resourceId: string;
  /** The restored snapshot: required by a search for a clean point, which judges one point after another. */
  snapshotId?: string;
  result: 'pass' | 'fail';
  /** What the validator saw; kept in the report. At most 1,000 characters. */
  message?: string;
}

/** Whether the drill took the verdict. A verdict it cannot take is refused by the update's validator instead. */
export interface DrillValidationTaken {
  taken: true;
  resourceId: string;
  result: 'pass' | 'fail';
}

/** Delivers a validation verdict; refused (not written to history) when the resource is not waiting for one. */
export const drillValidationUpdate = defineUpdate<DrillValidationTaken, [DrillValidationVerdict]>('drillValidation');
