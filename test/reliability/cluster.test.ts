// The runbooks on a real Temporal deployment: the Temporal server built from its Go module (the dev server's server
// version) on PostgreSQL, two worker processes, and kill -9 of one worker while a drill and an approval-gated restore
// run, then of the server itself. Every process is separate.
import { ensureBuilt } from '../../bench/reliability/build';
import { runReliability, type ReliabilitySummary } from '../../bench/reliability/harness';
import { projectRoot } from '../../bench/reliability/stack';

let summary: ReliabilitySummary;

beforeAll(async () => {
  ensureBuilt(projectRoot());
  summary = await runReliability({
    temporal: 'cluster',
    trials: 2,
    seed: 20261124,
    kinds: ['one-of-two-killed', 'server-restart'],
    trialTimeoutMs: 4 * 60_000,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  // The first run may build the server with Go (minutes); .ci/run builds it before the timed steps.
}, 20 * 60_000);

test('a worker was killed while the drill and the restore ran, and the other worker finished both', () => {
  const trial = summary.results.find((r) => r.kind === 'one-of-two-killed');
  expect(trial?.disruption).toMatch(/^kill -9 worker-1 .*another worker goes on$/);
  expect([...(trial?.disrupted ?? [])].sort()).toEqual(['bucket-restore', 'drill']);
  expect(trial?.runs.map((r) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
  expect(trial?.problems).toEqual([]);
});

test('the Temporal server was killed mid-run and restarted on its database, and the run finished', () => {
  const trial = summary.results.find((r) => r.kind === 'server-restart');
  expect(trial?.disruption).toMatch(/^kill -9 the Temporal server .*restarted on its database/);
  expect(trial?.disrupted).toHaveLength(1);
  expect(trial?.problems).toEqual([]);
});

test('every run completed, with no duplicate job and no restore without its approvals', () => {
  expect(summary.runs).toBe(3);
  expect(summary.completed).toBe(summary.runs);
  expect(summary.duplicateJobs).toBe(0);
  expect(summary.unapproved).toBe(0);
  expect(summary.ok).toBe(true);
});
