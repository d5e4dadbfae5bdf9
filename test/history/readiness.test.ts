// The readiness score (history/readiness.ts): the worked example docs/operations/readiness.md publishes, and its
// properties over many random histories. No fast-check in the repository: the random histories come from a seeded
// generator, the same on every run.
import type { DrillEntry, SealStatus } from '../../history/drill-index';
import { nearestRank, readiness, readinessOf, READINESS_WEIGHTS, type ReadinessScore } from '../../history/readiness';
import type { DrillVerdict } from '../../runbooks/dr-drill/report';
import { daysBefore, entry, type ResultSpec } from './entries';

const NOW = new Date('2026-11-29T00:00:00.000Z');
const NIGHTLY = { rpoSeconds: 86_400, rtoSeconds: 3_600 };
const WEEKLY = { rpoSeconds: 172_800, rtoSeconds: 14_400 };

/** The docs' example: five resources, two drills. */
const EXAMPLE = [
  entry({
    runId: 'n1',
    finishedAt: daysBefore(NOW, 120),
    targets: NIGHTLY,
    resources: [{ id: 'ledger-db', rtoSeconds: 900, rpoSeconds: 3_600 }],
  }),
  entry({
    runId: 'n2',
    finishedAt: daysBefore(NOW, 60),
    targets: NIGHTLY,
    resources: [{ id: 'users-db', rtoSeconds: 2_400, rpoSeconds: 86_400 }],
  }),
  entry({
    runId: 'n3',
    finishedAt: daysBefore(NOW, 40),
    targets: NIGHTLY,
    resources: [{ id: 'orders-db', rtoSeconds: 1_500, rpoSeconds: 43_200 }],
  }),
  entry({
    runId: 'n4',
    finishedAt: daysBefore(NOW, 2),
    targets: NIGHTLY,
    resources: [{ id: 'orders-db', rtoSeconds: 1_200, rpoSeconds: 43_200 }],
  }),
  entry({
    runId: 'n5',
    finishedAt: daysBefore(NOW, 1),
    targets: NIGHTLY,
    resources: [{ id: 'users-db', verdict: 'FAIL', rtoSeconds: 5_000, rpoSeconds: 86_400 }],
  }),
  entry({
    name: 'weekly',
    runId: 'w1',
    finishedAt: daysBefore(NOW, 14),
    targets: WEEKLY,
    resources: [{ id: 'logs-bucket', rtoSeconds: 10_800, rpoSeconds: 43_200 }],
  }),
  entry({
    name: 'weekly',
    runId: 'w2',
    finishedAt: daysBefore(NOW, 7),
    targets: WEEKLY,
    resources: [{ id: 'media-bucket', rtoSeconds: 7_200, rpoSeconds: 86_400 }],
  }),
];

const rounded = (s: ReadinessScore) => ({
  scope: s.scope,
  score: s.score,
  inputs: Object.fromEntries(
    Object.entries(s.inputs).map(([k, v]) => [k, Number.isInteger(v) ? v : Math.round(v * 10_000) / 10_000]),
  ),
});

describe('the worked example of docs/operations/readiness.md', () => {
  const report = readiness(EXAMPLE, { now: NOW, withinDays: 90 });

  test('weights: 40 coverage, 30 pass share, 20 RTO margin, 10 freshness', () => {
    expect(report.weights).toEqual({ coverage: 40, passShare: 30, rtoMargin: 20, freshness: 10 });
    expect(Object.values(READINESS_WEIGHTS).reduce((a: number, b: number) => a + b, 0)).toBe(100);
  });

  test('nightly: 41.1', () => {
    expect(rounded(report.drills[0] as ReadinessScore)).toEqual({
      scope: 'nightly',
      score: 41.1,
      inputs: {
        inScope: 3,
        covered: 2,
        coverage: 0.6667,
        latestPassed: 1,
        passShare: 0.3333,
        withoutRto: 1,
        rtoMargin: 0,
        freshness: 0.4389,
      },
    });
  });

  test('weekly: 89.0', () => {
    expect(rounded(report.drills[1] as ReadinessScore)).toEqual({
      scope: 'weekly',
      score: 89,
      inputs: {
        inScope: 2,
        covered: 2,
        coverage: 1,
        latestPassed: 2,
        passShare: 1,
        rtoP95Ratio: 0.75,
        withoutRto: 0,
        rtoMargin: 0.5,
        freshness: 0.8972,
      },
    });
  });

  test('the estate: 56.2', () => {
    expect(rounded(report.estate)).toEqual({
      scope: 'estate',
      score: 56.2,
      inputs: {
        inScope: 5,
        covered: 4,
        coverage: 0.8,
        latestPassed: 3,
        passShare: 0.6,
        withoutRto: 1,
        rtoMargin: 0,
        freshness: 0.6222,
      },
    });
  });

  test('once ledger-db passes again, in 1,000 s: the RTO margin counts', () => {
    const again = entry({
      runId: 'n6',
      finishedAt: daysBefore(NOW, 0.5),
      targets: NIGHTLY,
      resources: [{ id: 'ledger-db', rtoSeconds: 1_000, rpoSeconds: 3_600 }],
    });
    const estate = readiness([...EXAMPLE, again], { now: NOW }).estate;
    // Ratios 0.278, 0.333, 0.5, 0.667, 0.75: the 95th percentile of five is the fifth.
    expect(estate.inputs).toMatchObject({ covered: 5, latestPassed: 4, rtoP95Ratio: 0.75, rtoMargin: 0.5 });
    expect(estate.score).toBeGreaterThan(56.2);
  });
});

test('nearest rank: the smallest value at or above the share of values', () => {
  expect(nearestRank([], 95)).toBe(Number.POSITIVE_INFINITY);
  expect(nearestRank([3], 95)).toBe(3);
  expect(
    nearestRank(
      Array.from({ length: 20 }, (_, i) => 20 - i),
      95,
    ),
  ).toBe(19);
  expect(
    nearestRank(
      Array.from({ length: 21 }, (_, i) => i + 1),
      95,
    ),
  ).toBe(20);
});

test('every resource passed today, fast, from a fresh point: 100', () => {
  const drills = [
    entry({
      runId: 'a',
      finishedAt: daysBefore(NOW, 0),
      targets: NIGHTLY,
      resources: [
        { id: 'x', rtoSeconds: 100, rpoSeconds: 3_600 },
        { id: 'y', rtoSeconds: 1_800, rpoSeconds: 86_400 },
      ],
    }),
  ];
  expect(readiness(drills, { now: NOW }).estate.score).toBe(100);
});

test('an empty history scores 0, as does a scope no report names', () => {
  expect(readiness([], { now: NOW })).toMatchObject({ estate: { score: 0, inputs: { inScope: 0 } }, drills: [] });
  expect(readinessOf([], { now: NOW, scope: ['a', 'b'] }).score).toBe(0);
  expect(readinessOf(EXAMPLE, { now: NOW, scope: ['nowhere'] }).score).toBe(0);
});

/** The same random sequence on every run. */
function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 48_271) % 2_147_483_647;
    return state % n;
  };
}

const VERDICTS: DrillVerdict[] = ['PASS', 'PASS', 'PASS', 'PARTIAL', 'FAIL'];
const SEALS: SealStatus[] = ['verified', 'verified', 'verified', 'verified', 'chainFailed', 'failed', 'unsealed'];
const pick = <T>(random: (n: number) => number, list: readonly T[]): T => list[random(list.length)] as T;

function randomResult(random: (n: number) => number, id: string, verdict?: DrillVerdict): ResultSpec {
  return {
    id,
    verdict: verdict ?? pick(random, VERDICTS),
    rtoSeconds: random(10_000),
    rpoSeconds: random(300_000),
  };
}

function randomEntry(random: (n: number) => number, i: number, resources: number, verdict?: DrillVerdict): DrillEntry {
  const ids = Array.from({ length: resources }, (_, r) => `r${r}`).filter(() => random(3) === 0);
  const chosen = ids.length > 0 ? ids : [`r${random(resources)}`];
  return entry({
    name: `d${random(3)}`,
    runId: `run-${i}`,
    finishedAt: new Date(NOW.getTime() - random(200 * 24) * 3_600_000).toISOString(),
    seal: pick(random, SEALS),
    targets: {
      rpoSeconds: pick(random, [0, 3_600, 86_400, 172_800]),
      rtoSeconds: pick(random, [0, 600, 3_600, 7_200]),
    },
    resources: chosen.map((id) => randomResult(random, id, verdict)),
  });
}

function randomHistory(random: (n: number) => number): { drills: DrillEntry[]; resources: number } {
  const resources = 1 + random(12);
  const count = random(15);
  return { drills: Array.from({ length: count }, (_, i) => randomEntry(random, i, resources)), resources };
}

const idsOf = (drills: readonly DrillEntry[]) => [
  ...new Set(drills.flatMap((d) => d.resources.map((r) => r.resourceId))),
];
const drillNames = (drills: readonly DrillEntry[]) => [...new Set(drills.map((d) => d.name))];

/** Each part no higher, the RTO ratio no lower, and so the score no higher. */
function expectNoHigher(after: ReadinessScore, before: ReadinessScore): void {
  expect(after.score).toBeLessThanOrEqual(before.score);
  expect(after.inputs.coverage).toBeLessThanOrEqual(before.inputs.coverage);
  expect(after.inputs.passShare).toBeLessThanOrEqual(before.inputs.passShare);
  expect(after.inputs.rtoMargin).toBeLessThanOrEqual(before.inputs.rtoMargin);
  expect(after.inputs.freshness).toBeLessThanOrEqual(before.inputs.freshness);
  expect(after.inputs.rtoP95Ratio ?? Infinity).toBeGreaterThanOrEqual(before.inputs.rtoP95Ratio ?? Infinity);
}

const SEEDS = Array.from({ length: 400 }, (_, i) => i + 1);

describe('over 400 random histories', () => {
  test('the score is between 0 and 100, with one decimal', () => {
    for (const seed of SEEDS) {
      const { drills } = randomHistory(seeded(seed));
      const report = readiness(drills, { now: NOW, withinDays: 1 + seeded(seed * 7)(120) });
      for (const s of [report.estate, ...report.drills]) {
        expect(s.score).toBeGreaterThanOrEqual(0);
        expect(s.score).toBeLessThanOrEqual(100);
        expect(Math.round(s.score * 10) / 10).toBe(s.score);
      }
    }
  });

  test('removing a verified PASS never raises the score: of the estate, and of each drill', () => {
    let removed = 0;
    for (const seed of SEEDS) {
      const random = seeded(seed);
      const { drills } = randomHistory(random);
      const candidates = drills.flatMap((d, i) =>
        d.seal.status === 'verified'
          ? d.resources.flatMap((r, j) => (r.verdict === 'PASS' ? [{ i, j, id: r.resourceId }] : []))
          : [],
      );
      if (candidates.length === 0) continue;
      const { i, j, id } = pick(random, candidates);
      const target = drills[i] as DrillEntry;
      const rest = target.resources.filter((_, k) => k !== j);
      const after =
        rest.length === 0
          ? drills.filter((_, k) => k !== i)
          : drills.map((d, k) => (k === i ? { ...d, resources: rest } : d));
      removed++;
      const now = NOW;
      // The same estate, less evidence.
      expectNoHigher(
        readinessOf(after, { now, scope: idsOf(drills) }),
        readinessOf(drills, { now, scope: idsOf(drills) }),
      );
      for (const name of drillNames(drills)) {
        const of = (list: readonly DrillEntry[]) => list.filter((d) => d.name === name);
        const scope = idsOf(of(drills));
        expectNoHigher(readinessOf(of(after), { now, scope, name }), readinessOf(of(drills), { now, scope, name }));
      }
      // With the scope the reports name: the same whenever another report still names the resource.
      if (idsOf(after).includes(id)) {
        expectNoHigher(readiness(after, { now }).estate, readiness(drills, { now }).estate);
      }
    }
    expect(removed).toBeGreaterThan(300);
  });

  test('adding a FAIL never raises the score: of the estate, and of each drill, whatever its seal and date', () => {
    for (const seed of SEEDS) {
      const random = seeded(seed);
      const { drills, resources } = randomHistory(random);
      // Results that failed, of resources known and new (r0 … r12).
      const failed = randomEntry(random, 99, resources + 1, pick(random, ['FAIL', 'PARTIAL', 'FAIL'] as const));
      const after = [...drills, failed];
      const before = readiness(drills, { now: NOW });
      const then = readiness(after, { now: NOW });
      expectNoHigher(then.estate, before.estate);
      for (const s of before.drills) expectNoHigher(then.drills.find((d) => d.scope === s.scope) as ReadinessScore, s);
      // With the scope held too.
      const scope = idsOf(after);
      expectNoHigher(readinessOf(after, { now: NOW, scope }), readinessOf(drills, { now: NOW, scope }));
    }
  });

  test('a history with no PASS that verifies scores 0', () => {
    for (const seed of SEEDS) {
      const { drills } = randomHistory(seeded(seed));
      const unproven = drills.map((d) =>
        d.seal.status === 'verified' ? { ...d, seal: { status: 'unsealed' as const, problems: [] } } : d,
      );
      expect(readiness(unproven, { now: NOW }).estate.score).toBe(0);
    }
  });
});
