// The period of an evidence pack, from --from and --to.

/** --from or --to is not a date, or the period ends before it starts. */
export class PackPeriodError extends Error {
  override name = 'PackPeriodError';
}

export interface PackPeriod {
  /** As given, for the manifest and the page. */
  from: string;
  to: string;
  /** Inclusive start and exclusive end, in milliseconds. */
  startMs: number;
  endMs: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/**
 * A day (`2026-01-01`, UTC) or an ISO timestamp with its zone. A day as --to counts whole: `--from 2026-01-01 --to
 * 2026-03-31` is the first quarter.
 */
export function parsePeriod(from: string | undefined, to: string | undefined): PackPeriod {
  if (!from || !to) throw new PackPeriodError('give both --from and --to (a day such as 2026-01-01, or an ISO time)');
  const startMs = parseInstant(from, '--from');
  const endMs = parseInstant(to, '--to') + (DAY.test(to) ? DAY_MS : 1);
  if (endMs <= startMs) throw new PackPeriodError(`--to ${to} is before --from ${from}`);
  return { from, to, startMs, endMs };
}

function parseInstant(text: string, option: string): number {
  const day = DAY.test(text);
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text);
  const ms = day ? Date.parse(`${text}T00:00:00Z`) : zoned ? Date.parse(text) : NaN;
  // Date.parse accepts 2026-02-31 as March 3rd: the day must read back as given.
  if (Number.isNaN(ms) || (day && new Date(ms).toISOString().slice(0, 10) !== text)) {
    throw new PackPeriodError(
      `${option} ${JSON.stringify(text)} is not a day (2026-01-01) or an ISO time with its zone (2026-01-01T00:00:00Z)`,
    );
  }
  return ms;
}
