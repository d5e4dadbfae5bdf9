/** What a posture report counts and returns. Pure: the workflow merges the counts of each page with it. */

/** The inventory fields a posture report counts resources by. */
export const POSTURE_DIMENSIONS = ['backupStatus', 'cloudProvider', 'resourceType', 'environment'] as const;
export type PostureDimension = (typeof POSTURE_DIMENSIONS)[number];

/** Resources per value, for each dimension. */
export type PostureCounts = Record<PostureDimension, Record<string, number>>;

/** A resource with no environment classification is counted under the enum's own "unspecified" value. */
export const NO_ENVIRONMENT = 'ENVIRONMENT_UNSPECIFIED';

/** A dimension's counts: no prototype, so that a value named `constructor` or `__proto__` counts as itself. */
const tally = (): Record<string, number> => Object.create(null) as Record<string, number>;

export function emptyCounts(): PostureCounts {
  return { backupStatus: tally(), cloudProvider: tally(), resourceType: tally(), environment: tally() };
}

/** Counts one more resource of `value` in `dimension` (`counts` from `emptyCounts`). */
export function countValue(counts: PostureCounts, dimension: PostureDimension, value: string): void {
  const into = counts[dimension];
  into[value] = (Object.hasOwn(into, value) ? (into[value] ?? 0) : 0) + 1;
}

/**
 * Distinct values counted per dimension. The service's enums have a few dozen at most; a service that sent a new value
 * per resource would otherwise grow the counts, and so every page's result and the report's, with the inventory.
 */
export const MAX_VALUES_PER_DIMENSION = 100;
/** Where the values past `MAX_VALUES_PER_DIMENSION` (the least counted) are counted together. */
export const OTHER_VALUES = '(other values)';

/** The sum of two counts, keys sorted so that a result reads the same whatever order the pages came in. */
export function mergeCounts(a: PostureCounts, b: PostureCounts): PostureCounts {
  const out = emptyCounts();
  for (const dimension of POSTURE_DIMENSIONS) {
    // A Map: the values are the service's, and may be named like a member of Object.prototype.
    const sum = new Map<string, number>(Object.entries(a[dimension]));
    for (const [value, n] of Object.entries(b[dimension])) sum.set(value, (sum.get(value) ?? 0) + n);
    const sorted = bounded([...sum]).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    out[dimension] = Object.assign(tally(), Object.fromEntries(sorted));
  }
  return out;
}

/** At most `MAX_VALUES_PER_DIMENSION` entries: the most counted, and the rest summed under `OTHER_VALUES`. */
function bounded(entries: [string, number][]): [string, number][] {
  if (entries.length <= MAX_VALUES_PER_DIMENSION) return entries;
  const byCount = entries
    .filter(([value]) => value !== OTHER_VALUES)
    .sort(([x, m], [y, n]) => n - m || (x < y ? -1 : x > y ? 1 : 0));
  const kept = byCount.slice(0, MAX_VALUES_PER_DIMENSION - 1);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  const other = total - kept.reduce((sum, [, n]) => sum + n, 0);
  return [...kept, [OTHER_VALUES, other]];
}

/** Where each file of a report stands in its partial file: bytes written, so that a retried page starts there. */
export interface PostureOffsets {
  unprotectedCsv: number;
  staleCsv: number;
  unprotectedHtml: number;
  staleHtml: number;
}

export interface PostureFile {
  path: string;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface PostureReportResult {
  /** The service's time when the scan began; snapshot ages count from it. */
  asOf: string;
  /** Snapshots at or after this point in time count as recent. */
  cutoff: string;
  maxSnapshotAgeHours: number;
  resources: number;
  counts: PostureCounts;
  unprotected: number;
  stale: number;
  files: { unprotectedCsv: PostureFile; staleCsv: PostureFile; html: PostureFile };
}
