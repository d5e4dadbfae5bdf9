import { approvalPollDelayMs, jobPollDelayMs, looksDuring, MAX_APPROVAL_POLL_MS } from './poll-delays';

const HOUR = 3600_000;

test('a 12-hour approval wait takes at most 150 looks, and a young request is looked at within a minute', () => {
  expect(looksDuring(12 * HOUR, (age) => approvalPollDelayMs(age))).toBeLessThanOrEqual(150);
  expect(approvalPollDelayMs(0)).toBe(30_000);
  expect(approvalPollDelayMs(4 * 60_000)).toBe(30_000);
  expect(approvalPollDelayMs(8 * 60_000)).toBeLessThanOrEqual(60_000);
  expect(approvalPollDelayMs(24 * HOUR)).toBe(MAX_APPROVAL_POLL_MS);
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
