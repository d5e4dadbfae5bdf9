// A rotating drill's next resources (`coverage: {withinDays, perRun}`), from the output folder's sealed drill reports:
// the activity that resolves the drill's selection asks this, since runbooks/ may not read history/ itself.
import { coverageByResource } from '../history/coverage';
import type { DrillReader } from '../history/drill-index';
import { nextToDrill } from '../history/rotation';
import { medianGapMs } from '../runbooks/dr-drill/rotation-cadence';
import type { NextToDrill } from '../runtime/activity-deps';

/** How many of a drill's last runs give its cadence: enough that a run started by hand does not change it. */
const CADENCE_RUNS = 10;

/** Reads the drill's reports through the worker's one reader of its folder, which the coverage gauges share. */
export function drillRotation(reader: DrillReader): NextToDrill {
  return async ({ drill, scope, withinDays, perRun, now }) => {
    const { drills } = await reader.read();
    const coverage = coverageByResource(drills, { now, withinDays, drill, scope });
    // Newest first: the starts of the last runs, the cadence the drill keeps now.
    const starts = drills
      .filter((d) => d.name === drill)
      .slice(0, CADENCE_RUNS)
      .map((d) => Date.parse(d.startedAt));
    const recentRunGapMs = medianGapMs(starts);
    return {
      picked: nextToDrill(coverage.resources, perRun),
      ...(recentRunGapMs === undefined ? {} : { recentRunGapMs }),
    };
  };
}
