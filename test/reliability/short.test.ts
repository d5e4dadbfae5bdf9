// The reliability harness, short and seeded: separate processes for the Temporal dev server, the simulator and the
// worker; one kill -9 that hits a run of every job and export runbook, one each for the credential rotation and the
// offboarding (they take under a second, too short for the mixed kill), and the adoption case of issue 7 in both
// dialects: on a second stack whose simulator speaks the public one, where restore jobs carry provider-named types.
import { ensureBuilt } from '../../bench/reliability/build';
import { runReliability, type ReliabilitySummary } from '../../bench/reliability/harness';
import { projectRoot } from '../../bench/reliability/stack';

let summary: ReliabilitySummary;

beforeAll(async () => {
  ensureBuilt(projectRoot());
  summary = await runReliability({
    // Every kind once, and the adoption case once more in the public dialect.
    trials: 5,
    seed: 20261123,
    kinds: ['kill-mixed', 'adoption', 'kill-rotation', 'kill-offboarding'],
    dialect: 'both',
    trialTimeoutMs: 4 * 60_000,
    log: (line) => process.stderr.write(`${line}\n`),
  });
}, 12 * 60_000);

test('the kill hit a running run of every runbook kind', () => {
  for (const kind of ['bucket-restore', 'drill', 'query-export', 'cost-export', 'rotation', 'offboarding']) {
    expect(summary.disruptedKinds[kind] ?? 0).toBeGreaterThanOrEqual(1);
  }
});

test('every run completed', () => {
  expect(summary.completed).toBe(summary.runs);
  expect(summary.runs).toBe(10);
});

test('rotation: the new secret works and the old one is refused', () => {
  const rotation = summary.results.find((r) => r.kind === 'kill-rotation');
  expect(rotation?.problems).toEqual([]);
});

test('offboarding: the account is gone, deleted once', () => {
  const offboarding = summary.results.find((r) => r.kind === 'kill-offboarding');
  expect(offboarding?.problems).toEqual([]);
});

test('no duplicate jobs', () => {
  expect(summary.duplicateJobs).toBe(0);
});

test('adoption, in both dialects: the bucket restore ends with its own approved request and its own bucket job, never the files job', () => {
  const adoptions = summary.results.filter((r) => r.kind === 'adoption');
  expect(adoptions.map((r) => r.dialect).sort()).toEqual(['neutral', 'public']);
  for (const adoption of adoptions) {
    expect(adoption.problems).toEqual([]);
    // The 503 hit the first bucket restore call, and both restores completed.
    expect(adoption.checks.map((c) => c.completed)).toEqual([true, true]);
  }
  expect(summary.foreignAdoptions).toBe(0);
  expect(summary.unapproved).toBe(0);
});

test('the other trials ran in the neutral dialect only', () => {
  const others = summary.results.filter((r) => r.kind !== 'adoption');
  expect(others.map((r) => r.dialect)).toEqual(['neutral', 'neutral', 'neutral']);
});

test('no lost or duplicated rows, and every export matches the service data', () => {
  expect(summary.rows).toBeGreaterThan(0);
  expect(summary.lostRows).toBe(0);
  expect(summary.duplicateRows).toBe(0);
  expect(summary.shaMismatches).toBe(0);
});
