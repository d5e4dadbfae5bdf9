// What every benchmark of `npm run bench` reports, and the statistics they share.

/** One measured metric, with the baseline measured in the same run and, where the project has one, its goal. */
export interface Measurement {
  /** E.g. "export 1M rows, 20 ms latency". */
  metric: string;
  unit: string;
  /** The project's figure (a median, a peak, a count). */
  value: number;
  /** What it is compared with, measured in the same run, interleaved; absent for absolute figures. */
  baseline?: { name: string; value: number };
  /** value / baseline.value. */
  ratio?: number;
  /** The goal as text ("≤1.10× the limit") and whether this run met it. */
  goal?: string;
  met?: boolean;
  /** Anything a reader needs to trust the figure: rounds, sizes, what was discarded. */
  notes?: string;
}

/** A benchmark: runs its cases interleaved with their baselines (A, B, A, B… for at least 3 rounds). */
export interface Benchmark {
  name: string;
  run(options: { quick: boolean; log: (line: string) => void }): Promise<Measurement[]>;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The p-th percentile (0–100), nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** A measurement compared with its baseline. */
export function compared(
  metric: string,
  unit: string,
  value: number,
  baseline: { name: string; value: number },
  goal?: { text: string; met: (ratio: number, value: number) => boolean },
  notes?: string,
): Measurement {
  const ratio = value / baseline.value;
  return {
    metric,
    unit,
    value,
    baseline,
    ratio,
    ...(goal ? { goal: goal.text, met: goal.met(ratio, value) } : {}),
    ...(notes ? { notes } : {}),
  };
}
