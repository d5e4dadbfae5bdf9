// Posture report files are named per run, as drill reports are: two workflow IDs ending in the same name, or two runs
// of one ID, never replace each other's report.
import { basename, join } from 'node:path';
import { filesOf } from './activities';

const out = '/tmp/out';

test('two workflow IDs that end in the same name get files of their own', () => {
  const a = filesOf(out, 'team-a/weekly', 'run-a');
  const b = filesOf(out, 'team-b/weekly', 'run-b');
  expect(basename(a.final.html)).toBe('team-a_weekly--run-a.html');
  expect(basename(b.final.html)).toBe('team-b_weekly--run-b.html');
  for (const key of ['html', 'unprotectedCsv', 'staleCsv'] as const) expect(a.final[key]).not.toBe(b.final[key]);
});

test('two runs of one workflow ID get files of their own; all stay in posture-reports/, none hidden', () => {
  const first = filesOf(out, 'posture-report-2026-11-28', 'run-1');
  const second = filesOf(out, 'posture-report-2026-11-28', 'run-2');
  expect(first.final).toEqual({
    unprotectedCsv: join(out, 'posture-reports', 'posture-report-2026-11-28--run-1-unprotected.csv'),
    staleCsv: join(out, 'posture-reports', 'posture-report-2026-11-28--run-1-stale.csv'),
    html: join(out, 'posture-reports', 'posture-report-2026-11-28--run-1.html'),
  });
  expect(second.final.html).not.toBe(first.final.html);
  expect(filesOf(out, '../../etc/.x', 'r').final.html).toBe(join(out, 'posture-reports', '_._.._etc_.x--r.html'));
});

test('partial files keep their earlier names: a run in flight across an upgrade finds its rows', () => {
  expect(filesOf(out, 'weekly', 'run-1').partial.unprotectedCsv).toBe(
    join(out, 'posture-reports', 'weekly-unprotected.csv.run-1.partial'),
  );
});
