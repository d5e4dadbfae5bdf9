import { approvalPollDelayMs, jobPollDelayMs, looksDuring, MAX_APPROVAL_POLL_MS } from './poll-delays';

const HOUR = 3600_000;

test("a 12-hour approval wait takes at most 150 calls, the submit's read included", () => {
  expect(looksDuring(12 * HOUR, (age) => approvalPollDelayMs(age))).toBeLessThanOrEqual(150);
  // With the deadline of the benchmark's policy (48 h) too.
  expect(looksDuring(12 * HOUR, (age) => approvalPollDelayMs(age, 48 * HOUR - age))).toBeLessThanOrEqual(150);
});

test('looks at an approval are never more than five minutes apart, at any age', () => {
  for (let age = 0; age <= 72 * HOUR; age += 7 * 60_000 + 13_000) {
    expect(approvalPollDelayMs(age)).toBeLessThan(5 * 60_000);
    expect(approvalPollDelayMs(age, 48 * HOUR - age)).toBeLessThan(5 * 60_000);
  }
  expect(MAX_APPROVAL_POLL_MS).toBeLessThan(5 * 60_000);
  expect(approvalPollDelayMs(12 * HOUR)).toBe(MAX_APPROVAL_POLL_MS);
});

test('a young request is looked at 30 s after it was read, then at half again its age', () => {
  expect(approvalPollDelayMs(0)).toBe(30_000);
  expect(approvalPollDelayMs(10_000)).toBe(30_000);
  expect(approvalPollDelayMs(30_000)).toBe(45_000);
  expect(approvalPollDelayMs(2 * 60_000)).toBe(3 * 60_000);
});

test('the look after the approval deadline comes right after it', () => {
  expect(approvalPollDelayMs(6 * HOUR, 30_000)).toBe(31_000);
  expect(approvalPollDelayMs(6 * HOUR, -5_000)).toBe(MAX_APPROVAL_POLL_MS);
  expect(approvalPollDelayMs(6 * HOUR, Number.NaN)).toBe(MAX_APPROVAL_POLL_MS);
});

test('a job is looked at every quarter second while young, then at a tenth of its age up to a minute', () => {
  expect(jobPollDelayMs(0)).toBe(250);
  expect(jobPollDelayMs(2_000)).toBe(250);
  expect(jobPollDelayMs(9_000)).toBe(900);
  expect(jobPollDelayMs(100_000)).toBe(10_000);
  expect(jobPollDelayMs(HOUR)).toBe(60_000);
  expect(Number.isNaN(jobPollDelayMs(Number.NaN))).toBe(true);
  expect(looksDuring(HOUR, jobPollDelayMs)).toBeLessThanOrEqual(120);
});
