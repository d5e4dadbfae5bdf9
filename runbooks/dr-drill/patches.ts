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
