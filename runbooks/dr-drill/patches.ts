// The drill's patches: each names a change in the commands a drill issues, so that runs from before replay as they ran.

/** Measures RPO against the newest snapshot before the drill began (one lookup per resource), not the drill's own. */
export const RPO_PRIOR_SNAPSHOT_PATCH = 'drill-rpo-prior-snapshot';

/**
 * Runs the SQL check on every relational database, whatever its dialect's type token; before, only on one neutral
 * type, so histories without this marker replay that way.
 */
export const CHECK_BY_CATEGORY_PATCH = 'drill-check-by-category';

/**
 * Restores an existing recovery point (`latest` or `random` in a window) instead of always taking a fresh snapshot,
 * measures RPO on the point restored, adds validation to RTO, and waits for external validation verdicts. Runs from
 * before took a fresh snapshot whatever their input said.
 */
export const RECOVERY_POINT_PATCH = 'drill-recovery-point';

/**
 * Fans the resources out to child workflows per batch (./fan-out.ts), so that no history grows with the estate. Runs
 * from before drilled every resource in the one workflow, with lanes.
 */
export const FAN_OUT_PATCH = 'drill-fan-out';

/**
 * A drill's batches share its lanes: a batch tells the drill each lane that found no resource left (so that the drill
 * starts its next batch on it), and takes more lanes when the drill has some free and no batch left to start. Asked
 * once, when the drill sizes its batches (their histories budget for these signals); its batches are told in input.
 */
export const LANES_SHARED_PATCH = 'drill-batch-lanes-shared';

/** Looks up the newest snapshot before the drill beside the drill's own backup, not before it: off a lane's path. */
export const RPO_BESIDE_BACKUP_PATCH = 'drill-rpo-beside-backup';

/**
 * A latest-clean drill searches a resource the query call cannot reach by restores judged through its `validation`
 * (a cleanPoint search by validation). Runs from before failed such a resource at once.
 */
export const CLEAN_POINT_BY_VALIDATION_PATCH = 'drill-clean-point-by-validation';
