// The demo's drill lines: the point restored and how it was chosen, RPO on it, RTO as restore plus validation.
import { resourceLine } from '../../demo/drill-lines';
import { freshTimedOut, latestPassed, noPoint, randomPartial, v2Report } from '../helpers/drill-reports';

test('a latest point: its ID, how it was chosen and its age, RPO on it, RTO as restore plus validation', () => {
  expect(resourceLine(latestPassed)).toBe(
    'PASS    AWS_RDS  orders-db  point snap-latest (latest in 30 days, 35 h old)  RPO 35 h (met)  ' +
      'RTO 12 s = restore 8 s + validation 4 s (met)  check passed: 3 rows; expected rows >= 1',
  );
});

test('a drawn point that restored partially, a fresh one with the newest snapshot before it apart, and none', () => {
  expect(resourceLine(randomPartial)).toBe(
    'PARTIAL AWS_EFS  file-share  point snap-random (random: 4th newest of 12 in 30 days, 5.0 d old)  RPO 5.0 d (met)  ' +
      'RTO 30 s = restore 30 s + no validation (met)  restore partial: 3 files skipped',
  );
  expect(resourceLine(freshTimedOut)).toBe(
    'FAIL    AWS_EC2  web-vm  point snap-fresh (fresh, taken by the drill)  RPO 0 s (met)  ' +
      'RTO 2 h = restore 30 s + validation 2 h (MISSED)  ' +
      'newest snapshot before the drill snap-before, 35 h old (not restored)  validation timedOut  ' +
      'validation timed out; RTO 7230 s over target',
  );
  expect(resourceLine(noPoint)).toBe(
    'FAIL    AWS_S3  archive-bucket  no point restored  RPO n/a  RTO n/a  no recovery point in the last 30 days',
  );
});

test('a version 2 result: the restored snapshot, RPO on the newest before the drill, RTO the restore alone', () => {
  const [db] = v2Report().resources;
  expect(resourceLine(db ?? noPoint)).toBe(
    'PASS    AWS_RDS  orders-db  point snap-drill (fresh, taken by the drill)  ' +
      'RPO 35 h (met) on snap-prior, the newest before the drill  RTO 9 s, restore only (met)  ' +
      'check passed: 1 rows; expected rows >= 1',
  );
});
