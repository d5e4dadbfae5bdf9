// The reliability harness, short and seeded: separate processes for the Temporal dev server, the simulator and the
// worker; one kill -9 that hits a run of every job and export runbook, one each for the credential rotation and the
// offboarding (they take under a second, too short for the mixed kill), and the adoption case of issue 7.
import { ensureBuilt } from '../../bench/reliability/build';
import { runReliability, type ReliabilitySummary } from '../../bench/reliability/harness';
import { projectRoot } from '../../bench/reliability/stack';

let summary: ReliabilitySummary;

beforeAll(async () => {
  ensureBuilt(projectRoot());
  summary = await runReliability({
    trials: 4,
    seed: 20261123,
    kinds: ['kill-mixed', 'adoption', 'kill-rotation', 'kill-offboarding'],
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
  expect(summary.runs).toBe(8);
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

test('adoption: the bucket restore ends with its own approved request and its own BUCKET job, never the files job', () => {
  const adoption = summary.results.find((r) => r.kind === 'adoption');
  expect(adoption?.problems).toEqual([]);
  expect(summary.foreignAdoptions).toBe(0);
  expect(summary.unapproved).toBe(0);
});

test('no lost or duplicated rows, and every export matches the service data', () => {
  expect(summary.rows).toBeGreaterThan(0);
  expect(summary.lostRows).toBe(0);
  expect(summary.duplicateRows).toBe(0);
  expect(summary.shaMismatches).toBe(0);
});
