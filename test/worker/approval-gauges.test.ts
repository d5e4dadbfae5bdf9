// The approval gauges' figures from the looks the approval activities report: per runbook, waits in flight only.
import { APPROVAL_WAIT_STALE_MS, ApprovalWaits } from '../../worker/approval-gauges';
import type { ApprovalLook } from '../../runtime/activity-deps';

const HOUR = 3600_000;
const T0 = Date.parse('2026-11-26T08:00:00Z');

function setup() {
  let now = T0;
  const waits = new ApprovalWaits(() => now);
  const look = (requestId: string, overrides: Partial<ApprovalLook> = {}) =>
    waits.look({
      requestId,
      runbook: 'approvalGatedRestore',
      status: 'PENDING_APPROVAL',
      createdTime: new Date(T0 - HOUR).toISOString(),
      approvalExpirationTime: new Date(T0 + 2 * HOUR).toISOString(),
      serviceNowMs: now,
      ...overrides,
    });
  return { waits, look, advance: (ms: number) => (now += ms) };
}

test('the oldest wait and the nearest deadline, per runbook, from the requests still pending', () => {
  const { waits, look } = setup();
  look('r1');
  look('r2', {
    createdTime: new Date(T0 - 3 * HOUR).toISOString(),
    approvalExpirationTime: new Date(T0 + 5 * HOUR).toISOString(),
  });
  look('r3', { runbook: 'offboardSourceAccount', approvalExpirationTime: null });
  expect(Object.fromEntries(waits.figures())).toEqual({
    approvalGatedRestore: { waiting: 2, oldestWaitSeconds: 3 * 3600, deadlineSecondsLeft: 2 * 3600 },
    offboardSourceAccount: { waiting: 1, oldestWaitSeconds: 3600, deadlineSecondsLeft: Number.NaN },
  });
});

test('a decided request leaves, and a runbook with none left shows 0 and NaN', () => {
  const { waits, look } = setup();
  look('r1');
  look('r1', { status: 'APPROVED' });
  expect(Object.fromEntries(waits.figures())).toEqual({
    approvalGatedRestore: { waiting: 0, oldestWaitSeconds: 0, deadlineSecondsLeft: Number.NaN },
  });
});

test('ages move with the clock, on the service clock, and a request not looked at for long is dropped', () => {
  const { waits, look, advance } = setup();
  // The service's clock runs a minute ahead of the worker's.
  look('r1', { serviceNowMs: T0 + 60_000 });
  advance(5 * 60_000);
  expect(waits.figures().get('approvalGatedRestore')).toEqual({
    waiting: 1,
    oldestWaitSeconds: 3600 + 6 * 60,
    deadlineSecondsLeft: 2 * 3600 - 6 * 60,
  });
  advance(APPROVAL_WAIT_STALE_MS);
  expect(waits.figures().get('approvalGatedRestore')?.waiting).toBe(0);
});
