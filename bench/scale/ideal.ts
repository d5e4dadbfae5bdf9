// The time no drill can beat against a service that runs at most `cap` on-demand backups at once, and how busy a
// drill kept that cap: the arithmetic of the scale benchmark, apart so that it is tested on its own.

export interface ScaleShape {
  resources: number;
  /** The service's cap of on-demand backups running at once. */
  cap: number;
  backupSeconds: number;
  restoreSeconds: number;
  /** Checks after the last restore (SQL checks, validation); 0 for a drill without them. */
  checkSeconds: number;
}

/**
 * One backup per resource, `cap` at a time: ceil(resources / cap) waves of one backup job each. Only the last wave's
 * restores (and their checks) run after the last backup; every other restore overlaps later backups, as restores are
 * not capped.
 */
export function idealDrillSeconds(shape: ScaleShape): number {
  const waves = Math.ceil(shape.resources / shape.cap);
  return waves * shape.backupSeconds + shape.restoreSeconds + shape.checkSeconds;
}

/** How the ideal is computed, in words and figures, for the benchmark's notes. */
export function idealFormula(shape: ScaleShape): string {
  const waves = Math.ceil(shape.resources / shape.cap);
  return (
    `ceil(${shape.resources} backups / cap ${shape.cap}) = ${waves} waves × ${shape.backupSeconds} s backup + ` +
    `${shape.restoreSeconds} s restore + ${shape.checkSeconds} s checks = ${idealDrillSeconds(shape)} s`
  );
}

/**
 * The share of the cap the drill kept busy while it backed up: backup-seconds run over cap-seconds available, from
 * the first start the service accepted to the end of the last job.
 */
export function capUtilisation(acceptedStarts: readonly number[], backupSeconds: number, cap: number): number {
  if (acceptedStarts.length === 0) return 0;
  const first = Math.min(...acceptedStarts);
  const last = Math.max(...acceptedStarts);
  const spanSeconds = (last - first) / 1000 + backupSeconds;
  return (acceptedStarts.length * backupSeconds) / (cap * spanSeconds);
}

/** How many of `times` (epoch ms) fall in each window of `windowMs` from `from` to `to`. */
export function countPerWindow(times: readonly number[], from: number, to: number, windowMs: number): number[] {
  const counts = Array.from({ length: Math.max(1, Math.ceil((to - from) / windowMs)) }, () => 0);
  for (const at of times) {
    const i = Math.floor((at - from) / windowMs);
    if (i >= 0 && i < counts.length) counts[i] = (counts[i] ?? 0) + 1;
  }
  return counts;
}
