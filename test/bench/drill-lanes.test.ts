import { laneTimes } from '../../bench/drill/timeline';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 28) + seconds * 1000).toISOString();
const job = (from: number, to: number) => ({ createdTime: at(from), endTime: at(to) });
const start = Date.parse(at(0));

describe("the drill bench's times, from the service's jobs", () => {
  // Two lanes, three resources of 3 s backups and 2 s restores: lane 1 drills r1 then r3, lane 2 drills r2.
  const drill = {
    startedAt: start,
    closedAt: start + 11_600,
    parallelism: 2,
    backups: [job(0.5, 3.5), job(0.6, 3.6), job(6.0, 9.0)],
    restores: [job(3.7, 5.7), job(3.9, 5.9), job(9.2, 11.2)],
  };

  it('takes the ideal as ceil(resources / lanes) rounds of a backup and a restore', () => {
    expect(laneTimes(drill).idealMs).toBe(2 * 5_000);
  });

  it('splits the rest into the start, the notices, the hand-overs and the tail', () => {
    const t = laneTimes(drill);
    expect(t.wallMs).toBe(11_600);
    expect(t.leadMs).toBe(500);
    expect(t.noticeMs.map(Math.round)).toEqual([200, 300, 200]);
    // The first restore to end (5.7 s) frees the lane of the third backup (6.0 s).
    expect(t.handOverMs.map(Math.round)).toEqual([300]);
    expect(Math.round(t.tailMs)).toBe(400);
  });

  it('has no hand-over when every resource has a lane of its own', () => {
    expect(laneTimes({ ...drill, parallelism: 3 }).handOverMs).toEqual([]);
  });
});
