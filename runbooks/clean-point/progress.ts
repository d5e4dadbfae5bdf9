import type { CheckedQuery } from './contract';

/** A query of the check the service has started but whose answer is not yet read. */
export interface RunningQuery {
  /** Its place in the check's queries, which is the number answered before it. */
  index: number;
  name: string;
  queryId: string;
}

/** What a point's check heartbeats: the queries answered, and the next one once the service has started it. */
export interface CheckProgress {
  answered: CheckedQuery[];
  running?: RunningQuery;
}

/**
 * Where an attempt of a point's check picks up from the previous attempt's heartbeat details (none on a first
 * attempt). Details of workers that checkpointed answers only (`{ answered }`) still read. A running query counts only
 * when it is the next query by place and name: any other ID would be another query's, whose answer is not this one.
 */
export function resumeFrom(details: unknown, queryNames: readonly string[]): CheckProgress {
  if (typeof details !== 'object' || details === null) return { answered: [] };
  const { answered, running } = details as { answered?: unknown; running?: unknown };
  const done = Array.isArray(answered) ? (answered as CheckedQuery[]) : [];
  const next = isRunningQuery(running) ? running : undefined;
  const resumes = next !== undefined && next.index === done.length && queryNames[next.index] === next.name;
  return resumes ? { answered: [...done], running: next } : { answered: [...done] };
}

function isRunningQuery(value: unknown): value is RunningQuery {
  if (typeof value !== 'object' || value === null) return false;
  const { index, name, queryId } = value as Record<string, unknown>;
  return Number.isInteger(index) && typeof name === 'string' && typeof queryId === 'string' && queryId !== '';
}
