// The scale benchmark's ideal for a capped service, and how busy a drill kept the cap (bench/scale/ideal.ts).
import { capUtilisation, countPerWindow, idealDrillSeconds, idealFormula } from '../../bench/scale/ideal';

const shape = { resources: 2_000, cap: 20, backupSeconds: 3, restoreSeconds: 3, checkSeconds: 0 };

test('the ideal is one backup job per wave of `cap` backups, then the last restore and its checks', () => {
  expect(idealDrillSeconds(shape)).toBe(100 * 3 + 3);
  expect(idealDrillSeconds({ ...shape, checkSeconds: 5 })).toBe(308);
  // A wave that is not full still takes a whole backup job.
  expect(idealDrillSeconds({ ...shape, resources: 2_001 })).toBe(101 * 3 + 3);
  expect(idealDrillSeconds({ ...shape, resources: 7 })).toBe(3 + 3);
  expect(idealFormula(shape)).toBe(
    'ceil(2000 backups / cap 20) = 100 waves × 3 s backup + 3 s restore + 0 s checks = 303 s',
  );
});

test('the cap is fully busy when each wave starts as the last one ends, and less so with gaps between waves', () => {
  const waves = (gapMs: number) =>
    Array.from({ length: 4 }, (_, wave) => Array<number>(20).fill(wave * (3_000 + gapMs))).flat();
  expect(capUtilisation(waves(0), 3, 20)).toBeCloseTo(1);
  expect(capUtilisation(waves(3_000), 3, 20)).toBeCloseTo(12 / 21);
  // Ten backups at once use half of a cap of twenty.
  expect(capUtilisation(Array<number>(10).fill(0), 3, 20)).toBeCloseTo(0.5);
  expect(capUtilisation([], 3, 20)).toBe(0);
});

test('starts are counted per window of the drill, and none outside it', () => {
  expect(countPerWindow([0, 9_999, 10_000, 25_000, 31_000, -1], 0, 30_000, 10_000)).toEqual([2, 1, 1]);
  expect(countPerWindow([], 0, 0, 10_000)).toEqual([0]);
});
