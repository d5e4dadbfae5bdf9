// A rotating drill's next resources (`coverage: {withinDays, perRun}`), from the output folder's sealed drill reports:
// the activity that resolves the drill's selection asks this, since runbooks/ may not read history/ itself.
import { coverageByResource } from '../history/coverage';
import { DrillReader } from '../history/drill-index';
import { nextToDrill } from '../history/rotation';
import type { NextToDrill } from '../runtime/activity-deps';

/** Reads the drill's reports (one reader per folder: its cache re-checks only the chains whose files changed). */
export function drillRotation(outputDir: string): NextToDrill {
  const reader = new DrillReader({ outputDir });
  return async ({ drill, scope, withinDays, perRun, now }) => {
    const { drills } = await reader.read();
    const coverage = coverageByResource(drills, { now, withinDays, drill, scope });
    return nextToDrill(coverage.resources, perRun);
  };
}
