import { ServiceClock } from '../../api/service-clock';

// The service's clock runs 2,345 ms ahead of ours; its Date header says the second each answer was made in.
const OFFSET = 2_345;
const dated = (madeAt: number) => Math.floor((madeAt + OFFSET) / 1_000) * 1_000;

test('one answer places the service within a second, and answers at other moments of the second narrow it', () => {
  const clock = new ServiceClock();
  expect(clock.offsetBounds()).toBeUndefined();
  // Round trips of 10 ms, the answer made halfway, at 100 ms steps of our clock.
  const widths: number[] = [];
  for (let sentAt = 1_000_000; sentAt < 1_003_000; sentAt += 100) {
    clock.observe(dated(sentAt + 5), sentAt, sentAt + 10);
    const b = clock.offsetBounds();
    if (!b) throw new Error('no bounds');
    expect(b.lo).toBeLessThanOrEqual(OFFSET);
    expect(b.hi).toBeGreaterThanOrEqual(OFFSET);
    widths.push(b.hi - b.lo);
  }
  expect(widths[0]).toBe(1_010);
  // Once answers fell on both sides of a second's edge, the bounds are about 100 ms apart, the spacing of the answers.
  expect(widths.at(-1)).toBeLessThanOrEqual(110);
});

test('a clock that was set starts the bounds again, and so do bounds ten minutes old', () => {
  const clock = new ServiceClock();
  for (let sentAt = 0; sentAt < 2_000; sentAt += 100) clock.observe(dated(sentAt + 5), sentAt, sentAt + 10);
  // Our clock jumps back by a minute: the next answer cannot hold within the old bounds.
  const after = 2_000 - 60_000;
  clock.observe(dated(2_005), after, after + 10);
  const reset = clock.offsetBounds();
  expect(reset && reset.lo).toBeGreaterThan(OFFSET + 50_000);
  expect(reset && reset.hi - reset.lo).toBe(1_010);
  // Ten minutes and more later, only the newest answer counts.
  const later = after + 11 * 60_000;
  clock.observe(dated(later + 60_000 + 5), later, later + 10);
  const fresh = clock.offsetBounds();
  expect(fresh && fresh.hi - fresh.lo).toBe(1_010);
});
