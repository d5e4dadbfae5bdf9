/** Cost windows, computed from a reference time in UTC. Pure, so workflows and the CLI share it. */

export interface CostWindow {
  /** Names the output file: `2026-11-20`, `2026-10` or `<start>_<end>`. */
  label: string;
  timeFrame: { startTime: string; endTime: string };
}

export function costWindow(
  window: 'previous-day' | 'previous-month' | { startTime: string; endTime: string },
  reference: Date,
): CostWindow {
  if (window === 'previous-day') {
    const end = Date.UTC(reference.getUTCFullYear(), reference.getUTCMonth(), reference.getUTCDate());
    const start = end - 24 * 3600 * 1000;
    return { label: iso(start).slice(0, 10), timeFrame: { startTime: iso(start), endTime: iso(end) } };
  }
  if (window === 'previous-month') {
    const end = Date.UTC(reference.getUTCFullYear(), reference.getUTCMonth(), 1);
    const start = Date.UTC(reference.getUTCFullYear(), reference.getUTCMonth() - 1, 1);
    return { label: iso(start).slice(0, 7), timeFrame: { startTime: iso(start), endTime: iso(end) } };
  }
  const start = Date.parse(window.startTime);
  const end = Date.parse(window.endTime);
  const compact = (ms: number) => iso(ms).replace(/[:.]/g, '').replace(/000Z$/, 'Z');
  return { label: `${compact(start)}_${compact(end)}`, timeFrame: { startTime: iso(start), endTime: iso(end) } };
}

const iso = (ms: number) => new Date(ms).toISOString();
