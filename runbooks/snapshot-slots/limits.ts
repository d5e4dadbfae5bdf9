// The arithmetic of the snapshot-start limit: pure functions of the state and an event, so that the limiter
// workflow stays deterministic and the behaviour can be tested without Temporal. The service caps on-demand backups
// running at once (take-snapshot answers 429) without publishing the number (docs/service-interface.md §8).

/** Where the limit starts before the service has refused anything: low, since the cap is unknown. */
export const INITIAL_LIMIT = 10;
/** Never below one slot: a limit of zero would stop every drill for good. */
export const MIN_LIMIT = 1;
/** A bound on growth when the service never refuses (a service without a cap). */
export const MAX_LIMIT = 1_000;
/** The longest `Retry-After` obeyed, as for every call (runtime/failures.ts). */
export const MAX_PAUSE_MS = 5 * 60_000;
/** Without `Retry-After`: 2 s, doubling with each 429 in a row, up to a minute. */
const FIRST_PAUSE_MS = 2_000;
const MAX_BACKOFF_PAUSE_MS = 60_000;
/** The probe past a confirmed ceiling slows down by this factor per confirmation, up to this much. */
const PROBE_SLOWDOWN = 2;
const MAX_PROBE_SLOWDOWN = 16;
/**
 * A ceiling is a fact about the service at one moment, and the service counts every on-demand backup of the project,
 * other teams' too: a cap seen during someone else's burst must not hold every later drill down. So a ceiling no 429
 * has confirmed for a minute is probed at the normal pace again, and a start past it that holds disproves it.
 */
export const PROBE_RESET_MS = 60_000;
/**
 * Runs from before ceilings were kept until disproved also forgot one no 429 had confirmed for ten minutes: under a
 * sustained load at the cap, that sent the limit back to slow start, past the cap, into a burst of 429s.
 */
export const CEILING_MEMORY_MS = 10 * 60_000;

export interface SlotLimit {
  /** Slots that may be held at once. */
  limit: number;
  /** Successes since the limit last grew: a whole window of them adds a slot (integers, so no rounding drifts). */
  credit: number;
  /**
   * The cap as the service showed it at its last 429: the backups running in our slots then, plus the one refused.
   * Undefined until the first 429.
   */
  ceiling?: number;
  /** When a 429 last set or confirmed `ceiling` (epoch ms, workflow time): its age decides how long it holds. */
  ceilingAt?: number;
  /** How much slower than one slot per window of successes the limit grows past `ceiling - 1`. */
  probeSlowdown: number;
  /** Decreases so far; a 429 on a slot granted before the last decrease belongs to that decrease (see `throttled`). */
  decreases: number;
  /** 429s in a row, for the backoff when the service sends no `Retry-After`. */
  throttledInARow: number;
  /** No grants before this time (epoch ms): the service's `Retry-After`, or the backoff. */
  pausedUntil: number;
}

export function initialLimit(limit = INITIAL_LIMIT): SlotLimit {
  return { limit: clamp(limit), credit: 0, probeSlowdown: 1, decreases: 0, throttledInARow: 0, pausedUntil: 0 };
}

/** The slots the limit allows. */
export function slotsAllowed(state: SlotLimit): number {
  return clamp(state.limit);
}

/**
 * A start went through. Until the service first refuses one, the cap is unknown and the limit grows by a slot per
 * success (slow start: a slot is held longer than its backup runs, by the grant's and the release's trips through
 * Temporal, so with short jobs the limit that fills the cap is well above it, and one window per slot took minutes
 * to find it: bench/throttle). Once a 429 has shown the cap, additive increase: below the last ceiling the limit
 * regains a slot per success (it was halved there, and the service took that many before); from one below the
 * ceiling up it grows by one slot per window of successes (`limit` of them), and `probeSlowdown` times slower once
 * that ceiling was confirmed, so that a fixed cap is probed seldom and costs few 429s. With `at`, the ceiling ages
 * first (`aged`); `keeps`: however old, only a start past it by more than a tenth forgets it (false for runs from
 * before).
 */
export function started(given: SlotLimit, at?: StartedAt, keeps = false): SlotLimit {
  const state = at === undefined ? given : aged(given, at, keeps);
  const safe = state.ceiling === undefined ? undefined : state.ceiling - 1;
  const base = { ...state, throttledInARow: 0 };
  if (safe === undefined || state.limit < safe) return { ...base, limit: clamp(state.limit + 1), credit: 0 };
  const window = state.limit * state.probeSlowdown;
  const credit = state.credit + 1;
  return credit >= window ? { ...base, limit: clamp(state.limit + 1), credit: 0 } : { ...base, credit };
}

/** What the book knows at a success: when, and how many backups run in its slots, the new one included. */
export interface StartedAt {
  now: number;
  running: number;
}

/**
 * The ceiling as time and the starts since have left it: probed at the normal pace once no 429 confirmed it for
 * PROBE_RESET_MS, and forgotten when more backups run at once than it allowed plus one (a slot of margin, since the
 * count of running backups lags their ends), and with `keeps` plus a tenth of it. `keeps` false (runs from before):
 * forgotten too when no 429 confirmed it for CEILING_MEMORY_MS. A ceiling carried from before ages were kept starts
 * its age now.
 */
function aged(state: SlotLimit, { now, running }: StartedAt, keeps: boolean): SlotLimit {
  if (state.ceiling === undefined) return state;
  if (state.ceilingAt === undefined) return { ...state, ceilingAt: now };
  const age = now - state.ceilingAt;
  // The count also holds backups that ended and whose release is on its way, a few more or fewer from one moment to
  // the next: within a tenth past the ceiling is the same cap, as `throttled` confirms it.
  const margin = keeps ? Math.floor(state.ceiling / 10) : 0;
  if (running > state.ceiling + margin || (!keeps && age >= CEILING_MEMORY_MS)) {
    const { ceiling: _ceiling, ceilingAt: _at, ...rest } = state;
    return { ...rest, probeSlowdown: 1, credit: 0 };
  }
  if (age >= PROBE_RESET_MS && state.probeSlowdown > 1) return { ...state, probeSlowdown: 1, credit: 0 };
  return state;
}

export interface Throttled {
  /** When the 429 came (epoch ms, workflow time). */
  now: number;
  /** Slots held when it came, the refused one included. */
  held: number;
  /** Slots whose backup had started (and not ended) when it came: the service refused the next one. */
  running: number;
  /** `decreases` when the refused slot was granted. */
  grantedAtDecrease: number;
  /** The service's `Retry-After`, in seconds, when it sent one. */
  retryAfterSeconds?: number;
}

/**
 * A start was refused with 429: multiplicative decrease (the limit halves), once per episode: 429s on slots granted
 * before the last decrease were asked under the old limit and do not halve it again. Every 429 pauses grants for its
 * `Retry-After` (capped), or a backoff doubling with each 429 in a row when the service sends none.
 */
export function throttled(state: SlotLimit, event: Throttled, forgets = false): SlotLimit {
  const pause =
    event.retryAfterSeconds === undefined
      ? Math.min(MAX_BACKOFF_PAUSE_MS, FIRST_PAUSE_MS * 2 ** state.throttledInARow)
      : Math.min(MAX_PAUSE_MS, Math.max(1, event.retryAfterSeconds) * 1000);
  const paused = {
    ...state,
    throttledInARow: state.throttledInARow + 1,
    pausedUntil: Math.max(state.pausedUntil, event.now + pause),
  };
  // Slots granted at once may meet their 429s before every start in between was reported: the highest count wins.
  const seen = Math.max(MIN_LIMIT + 1, event.running + 1);
  const dated = forgets ? { ceilingAt: event.now } : {};
  if (event.grantedAtDecrease < state.decreases) {
    return { ...paused, ceiling: Math.max(state.ceiling ?? 0, seen), ...dated };
  }
  const ceiling = seen;
  // The same cap again (within a slot, or a tenth: the count of running backups lags their ends a little): probe it
  // more seldom; a new one: probe at the normal pace.
  const confirmed = state.ceiling !== undefined && Math.abs(state.ceiling - ceiling) <= Math.max(1, ceiling / 10);
  const probeSlowdown = confirmed ? Math.min(MAX_PROBE_SLOWDOWN, state.probeSlowdown * PROBE_SLOWDOWN) : 1;
  return {
    ...paused,
    // Halved from the slots in use when fewer were: a limit never reached says nothing of the cap. And no more than
    // the backups the service was running when it refused (`forgets`): a cap that fell far is respected after one
    // round of 429s, not after a halving per round.
    limit: clamp(Math.min(Math.floor(Math.min(state.limit, event.held) / 2), forgets ? event.running : Infinity)),
    credit: 0,
    ceiling,
    ...dated,
    probeSlowdown,
    decreases: state.decreases + 1,
  };
}

/** Whether grants may go on at `now`. */
export function pausedAt(state: SlotLimit, now: number): boolean {
  return now < state.pausedUntil;
}

function clamp(limit: number): number {
  return Math.min(MAX_LIMIT, Math.max(MIN_LIMIT, Math.floor(limit)));
}
