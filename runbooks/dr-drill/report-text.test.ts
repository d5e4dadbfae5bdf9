import {
  freshTimedOut,
  latestPassed,
  noPoint,
  randomPartial,
  v2Report,
  v3Report,
} from '../../test/helpers/drill-reports';
import {
  countsText,
  howChosen,
  newestBeforeText,
  pointText,
  readingOrder,
  rpoText,
  rtoText,
  validationText,
} from './report-text';

test('how a recovery point was chosen, in the words an auditor reads', () => {
  const at = '2026-11-20T01:00:00.000Z';
  expect(howChosen({ snapshotId: 's', pointInTime: at, selection: 'latest', windowDays: 30 })).toBe(
    'latest in 30 days',
  );
  expect(howChosen({ snapshotId: 's', pointInTime: at, selection: 'latest', windowDays: 1 })).toBe('latest in 1 day');
  const drawn = (index: number, candidates = 12) =>
    howChosen({ snapshotId: 's', pointInTime: at, selection: 'random', windowDays: 30, draw: { candidates, index } });
  expect(drawn(3)).toBe('random: 4th newest of 12 in 30 days');
  expect([drawn(0), drawn(1), drawn(2), drawn(10, 30), drawn(21, 30)]).toEqual([
    'random: newest of 12 in 30 days',
    'random: 2nd newest of 12 in 30 days',
    'random: 3rd newest of 12 in 30 days',
    'random: 11th newest of 30 in 30 days',
    'random: 22nd newest of 30 in 30 days',
  ]);
  expect(howChosen({ snapshotId: 's', pointInTime: at, selection: 'fresh' })).toBe('fresh: taken by the drill');
  expect(howChosen({ snapshotId: 's', pointInTime: at, selection: 'reused' })).toBe('reused: inside the RPO target');
});

test('RPO is on the point restored; a fresh snapshot names the newest one before the drill apart', () => {
  expect(pointText(latestPassed)).toBe('snap-latest at 2026-11-23T14:00:00.000Z (latest in 30 days)');
  expect(rpoText(latestPassed)).toBe('35.0 h (126000 s), target met');
  expect(newestBeforeText(latestPassed)).toBe('—');
  expect(pointText(freshTimedOut)).toBe('snap-fresh at 2026-11-25T01:00:02.000Z (fresh: taken by the drill)');
  expect(rpoText(freshTimedOut)).toBe('0 s, target met');
  expect(newestBeforeText(freshTimedOut)).toBe('snap-before at 2026-11-23T14:00:00.000Z, 35.0 h (126000 s) old');
  expect(pointText(noPoint)).toBe('none restored');
  expect(rpoText(noPoint)).toBe('n/a');
});

test('RTO is the whole against the target, with restore and validation as its parts', () => {
  expect(rtoText(latestPassed)).toBe('12 s = restore 8 s + validation 4 s, target met');
  expect(rtoText(randomPartial)).toBe('30 s = restore 30 s + no validation, target met');
  expect(rtoText(freshTimedOut)).toBe('2.0 h (7230 s) = restore 30 s + validation 2.0 h (7200 s), target MISSED');
  expect(validationText(latestPassed)).toBe('SQL check passed (3 rows; expected rows >= 1)');
  expect(validationText(freshTimedOut)).toBe('external validation TIMED OUT (no answer by 2026-11-25T03:01:00.000Z)');
  expect(validationText(noPoint)).toBe('none');
  const unsent = {
    status: 'failed' as const,
    requestedAt: '2026-11-25T01:01:00.000Z',
    deadline: '2026-11-25T03:01:00.000Z',
    detail: "validation not requested: no webhook target named 'ops'",
  };
  expect(validationText({ ...noPoint, validation: unsent })).toBe(
    "external validation FAILED (validation not requested: no webhook target named 'ops')",
  );
});

test('a version 2 report reads as it was measured: RPO on the newest snapshot before the drill, RTO the restore', () => {
  const [db, vm] = v2Report().resources;
  if (!db || !vm) throw new Error('the sample lost a resource');
  expect(pointText(db)).toBe('snap-drill at 2026-11-20T01:00:01.000Z (fresh: taken by the drill)');
  expect(rpoText(db)).toBe(
    '35.0 h (126000 s), target met; measured on snap-prior, the newest snapshot before the drill, not the one restored',
  );
  expect(newestBeforeText(db)).toBe('snap-prior at 2026-11-18T14:00:00.000Z, 35.0 h (126000 s) old');
  expect(rtoText(db)).toBe('9 s (restore only), target met');
  expect(rpoText(vm)).toBe('MISSED: no recovery point to measure');
  expect(countsText(v2Report().summary)).toBe('1 passed, 1 failed of 2');
});

test('failed first, then partial, then passed, each in the report order', () => {
  const report = v3Report();
  expect(readingOrder(report.resources).map((r) => r.resourceId)).toEqual([
    'r-fresh',
    'r-none',
    'r-random',
    'r-latest',
    'r-external',
  ]);
  expect(countsText(report.summary)).toBe('2 passed, 1 partial, 2 failed of 5');
});
