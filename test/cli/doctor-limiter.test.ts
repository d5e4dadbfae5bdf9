// What `runbooks doctor` says of the limiter of snapshot starts: the limit, and the ceiling with its age and what the
// age means for the pace of probing (runbooks/snapshot-slots/limits.ts).
import { limiterDetail } from '../../cli/doctor-temporal';

const status = { projectId: 'p', limit: 5, held: 2, waiting: 7, starts: 40, throttled: 3, reclaimed: 0 };

test('no ceiling: the limit alone', () => {
  expect(limiterDetail({ ...status, limit: 10 })).toBe(
    'limit 10 snapshot starts at once (2 held, 7 waiting); no ceiling: no 429 yet, or the last one forgotten',
  );
});

test('a ceiling says the backups running when the service refused, how long ago, and the pace it is probed at', () => {
  const at = (ceilingAgeSeconds: number) => limiterDetail({ ...status, ceiling: 6, ceilingAgeSeconds });
  expect(at(30)).toBe(
    'limit 5 snapshot starts at once (2 held, 7 waiting); the service refused a start at 5 running, 30 s ago: ' +
      'probed past slowly for a minute after its last 429',
  );
  expect(at(300)).toMatch(/, 5 min ago: probed past at the normal pace now$/);
  expect(at(7_200)).toMatch(
    /, 2 h ago: probed past at the normal pace now \(a limiter run from before ceilings were kept forgets it at the next start\)$/,
  );
  expect(limiterDetail({ ...status, ceiling: 6 })).toMatch(/before ages were kept: probed past slowly/);
});
