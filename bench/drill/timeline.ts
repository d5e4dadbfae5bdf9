// Where a drill's time goes, from the service's own job times: before the first backup, between a backup's end and
// its restore, at each hand-over in a lane, and after the last job. The ideal is what the jobs allow in the lanes.
import { median } from '../measure';

interface JobTimes {
  createdTime: string;
  endTime?: string | null;
}

export interface LaneTimes {
  wallMs: number;
  /** ceil(resources / parallelism) × (the median backup + the median restore): what no drill in those lanes beats. */
  idealMs: number;
  /** The drill's start to the service creating its first backup. */
  leadMs: number;
  /** Per resource, in the order backups ended: the backup's end to the creation of the next restore in that order. */
  noticeMs: number[];
  /** Per hand-over: the k-th restore to end to the (k + parallelism)-th backup created, the lane it freed. */
  handOverMs: number[];
  /** The last job's end to the drill's close. */
  tailMs: number;
}

const span = (j: JobTimes) => Date.parse(j.endTime ?? '') - Date.parse(j.createdTime);
const ascending = (values: number[]) => [...values].sort((a, b) => a - b);

/**
 * A drill's times from its jobs as the service reports them. The k-th backup to end is paired with the k-th restore
 * created, and the k-th restore to end with the (k + parallelism)-th backup created: in lanes of equal jobs, that is
 * each lane's own next step.
 */
export function laneTimes(drill: {
  startedAt: number;
  closedAt: number;
  parallelism: number;
  backups: JobTimes[];
  restores: JobTimes[];
}): LaneTimes {
  const { backups, restores, parallelism } = drill;
  const created = (jobs: JobTimes[]) => ascending(jobs.map((j) => Date.parse(j.createdTime)));
  const ended = (jobs: JobTimes[]) => ascending(jobs.map((j) => Date.parse(j.endTime ?? '')));
  const backupsCreated = created(backups);
  const backupsEnded = ended(backups);
  const restoresCreated = created(restores);
  const restoresEnded = ended(restores);
  const waves = Math.ceil(backups.length / parallelism);
  const pairs = (from: number[], to: number[], shift: number) =>
    from.slice(0, Math.max(0, to.length - shift)).map((at, k) => (to[k + shift] ?? NaN) - at);
  return {
    wallMs: drill.closedAt - drill.startedAt,
    idealMs: waves * (median(backups.map(span)) + median(restores.map(span))),
    leadMs: (backupsCreated[0] ?? NaN) - drill.startedAt,
    noticeMs: pairs(backupsEnded, restoresCreated, 0),
    handOverMs: pairs(restoresEnded, backupsCreated, parallelism),
    tailMs: drill.closedAt - Math.max(...restoresEnded, ...backupsEnded),
  };
}
