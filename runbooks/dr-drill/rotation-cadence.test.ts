import { feasibilityWarning, medianGapMs, rotationCovers, rotationFeasibility } from './rotation-cadence';

const DAY_MS = 86_400_000;

test('whether runs cover a scope in the period, and the perRun that would', () => {
  expect(rotationCovers(1_200, 20, 90)).toEqual({ covers: true, perRunNeeded: 14 });
  expect(rotationCovers(1_200, 10, 90)).toEqual({ covers: false, perRunNeeded: 14 });
  expect(rotationCovers(1_200, 10, 0)).toEqual({ covers: false, perRunNeeded: 1_200 });
});

test('the cadence is the median gap between runs, whatever their order; one run or none says nothing', () => {
  expect(medianGapMs([])).toBeUndefined();
  expect(medianGapMs([5])).toBeUndefined();
  expect(medianGapMs([3 * DAY_MS, 0, DAY_MS, 2 * DAY_MS])).toBe(DAY_MS);
  // A run started by hand between two scheduled ones does not halve the cadence.
  expect(medianGapMs([0, DAY_MS, DAY_MS + 60_000, 2 * DAY_MS, 3 * DAY_MS, 4 * DAY_MS])).toBe(DAY_MS);
  expect(medianGapMs([7, 7])).toBeUndefined();
});

test('a daily rotation of 20 covers 1,200 in 90 days; of 10 it cannot, and says perRun 14 would', () => {
  const daily = { gapMs: DAY_MS, basis: 'schedule' as const };
  const covering = { scope: 1_200, perRun: 20, withinDays: 90 };
  const f = rotationFeasibility({ ...covering, cadence: daily });
  expect(f).toEqual({ basis: 'schedule', everySeconds: 86_400, runsInPeriod: 90, covers: true, perRunNeeded: 14 });
  expect(feasibilityWarning({ ...covering, feasibility: f })).toBeUndefined();

  const short = { scope: 1_200, perRun: 10, withinDays: 90 };
  const weekly = rotationFeasibility({ ...short, cadence: { gapMs: 7 * DAY_MS, basis: 'recent-runs' } });
  expect(weekly).toMatchObject({ runsInPeriod: 12, covers: false, perRunNeeded: 100 });
  expect(feasibilityWarning({ ...short, feasibility: weekly })).toBe(
    'this rotation cannot cover its scope within 90 days: 10 a run × 12 runs (one every 7 days, by its last runs) ' +
      '< 1,200 resources; perRun 100 would',
  );
  expect(rotationFeasibility({ ...short })).toBeUndefined();
});

test('runs a day apart, each started a few seconds late, are 90 in 90 days', () => {
  const late = rotationFeasibility({
    scope: 1_200,
    perRun: 20,
    withinDays: 90,
    cadence: { gapMs: DAY_MS + 2_400, basis: 'recent-runs' },
  });
  expect(late).toMatchObject({ everySeconds: 86_400, runsInPeriod: 90 });
});
