// How long a wait sleeps between looks. A watch sleeps inside its attempt; a wait of one look per attempt says so in its
// "not yet" failure (`nextRetryDelay`), which overrides the retry policy's backoff. Neither is written to history, so
// the schedule changes no command.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/**
 * The heartbeat timeout that marks a watch: an attempt that looks many times, sleeping between looks, and beats once a
 * minute (runtime/heartbeat.ts `watchPause`) instead of every two seconds. A worker killed in one is noticed after this
 * long, and the wait resumes on another worker.
 */
export const WATCH_HEARTBEAT_TIMEOUT_MS = 2 * MINUTE;

/** The shortest gap between two looks: the service is asked at most once a second per wait. */
export const MIN_POLL_MS = SECOND;
/** The first look at an approval comes this long after the request was read (by its submit, or the look before). */
export const MIN_APPROVAL_POLL_MS = 30 * SECOND;
/**
 * Looks at an approval at most this far apart: an approval is noticed within five minutes at any age, with five
 * seconds left for the look itself and the workflow task that follows it; a `nudge` looks at once.
 */
export const MAX_APPROVAL_POLL_MS = 5 * MINUTE - 5 * SECOND;
/** Each gap is this many times the request's age, between the bounds above. */
const APPROVAL_GAP_PER_AGE = 1.5;
/** A young job is looked at this often: a drill's steps follow each other within a quarter second of the service. */
export const MIN_JOB_POLL_MS = 250;
/** Looks at a job at most this far apart. */
export const MAX_JOB_POLL_MS = MINUTE;

const clamp = (ms: number, max: number, min = MIN_POLL_MS) => Math.round(Math.min(max, Math.max(min, ms)));

/**
 * The gap before the next look at an undecided action request, from its age and its deadline (service clock). Reviewers
 * mostly answer soon after a request is made, so a young request is looked at after 30 s, then at gaps of half again
 * its age (looks at about 30 s, 75 s, 3 min and 8 min), then every 4 min 55 s: a 12-hour wait makes 149 calls with the
 * submit's own read, and an approval is noticed within five minutes at any age. No schedule does much better on both:
 * 12 hours at most five minutes apart is 144 looks already. The look after the approval deadline comes right after
 * it, so an expiry is reported when it happens.
 */
export function approvalPollDelayMs(ageMs: number, untilDeadlineMs?: number): number {
  const byAge = clamp(ageMs * APPROVAL_GAP_PER_AGE, MAX_APPROVAL_POLL_MS, MIN_APPROVAL_POLL_MS);
  if (untilDeadlineMs === undefined || !Number.isFinite(untilDeadlineMs) || untilDeadlineMs < 0) return byAge;
  return Math.min(byAge, clamp(untilDeadlineMs + SECOND, MAX_APPROVAL_POLL_MS));
}

/**
 * The gap before the next look at a running job: every quarter second while it is young (a job of seconds is noticed
 * within that of its end, not half its running time later), then a tenth of its age, up to a minute: a 3 s job takes
 * about 12 looks, an hour's job about 100.
 */
export function jobPollDelayMs(ageMs: number): number {
  return clamp(ageMs / 10, MAX_JOB_POLL_MS, MIN_JOB_POLL_MS);
}

/**
 * The looks a wait of `totalMs` takes under `delay` (the first at once: for an approval, the submit's own read), for
 * benchmarks and tests.
 */
export function looksDuring(totalMs: number, delay: (elapsedMs: number) => number): number {
  let looks = 0;
  for (let at = 0; at <= totalMs; at += delay(at)) looks += 1;
  return looks;
}
