import type { DrillResourceResult } from './report';
import { concludeResource, summarize } from './verdicts';

const targets = { rpoSeconds: 3600, rtoSeconds: 600 };

function restored(extra: Partial<DrillResourceResult> = {}): DrillResourceResult {
  return {
    resourceId: 'r1',
    resourceName: 'orders',
    resourceType: 'AWS_S3',
    snapshotReused: false,
    rpoSeconds: 60,
    rpoMet: true,
    rtoRestoreSeconds: 100,
    verdict: 'FAIL',
    reasons: [],
    ...extra,
  };
}

const rules = { targets, requireChecks: false, partial: false };

test('RTO is the restore plus the validation, and the target is compared with the sum', () => {
  const r = concludeResource(restored({ rtoRestoreSeconds: 400, rtoValidationSeconds: 300 }), rules);
  expect(r).toMatchObject({ rtoSeconds: 700, rtoMet: false, verdict: 'FAIL' });
  expect(r.reasons).toEqual(['RTO 700 s over target 600 s (restore 400 s + validation 300 s)']);
});

test('a partial restore that met every target is PARTIAL, never PASS; one that missed one is FAIL', () => {
  expect(concludeResource(restored(), { ...rules, partial: true }).verdict).toBe('PARTIAL');
  expect(concludeResource(restored({ rpoMet: false }), { ...rules, partial: true }).verdict).toBe('FAIL');
  expect(concludeResource(restored(), rules).verdict).toBe('PASS');
});

test('a validation that failed or timed out fails the resource with its detail', () => {
  const base = { requestedAt: '2026-11-25T00:00:00Z', deadline: '2026-11-25T01:00:00Z' };
  const timedOut = restored({
    validation: { ...base, status: 'timedOut', detail: 'validation timed out: no verdict within 1 h' },
  });
  expect(concludeResource(timedOut, rules)).toMatchObject({
    verdict: 'FAIL',
    reasons: ['validation timed out: no verdict within 1 h'],
  });
  const failed = restored({ validation: { ...base, status: 'failed', detail: 'validation failed: 500' } });
  expect(concludeResource(failed, rules).verdict).toBe('FAIL');
});

test('a check that could not run passes only without requireChecks', () => {
  const check = {
    query: 'q',
    expectation: 'rows >= 1',
    passed: false,
    status: 'notRun' as const,
    detail: 'check not run',
  };
  expect(concludeResource(restored({ check }), rules).verdict).toBe('PASS');
  expect(concludeResource(restored({ check }), { ...rules, requireChecks: true }).verdict).toBe('FAIL');
});

test('the drill is PASS only when all passed, FAIL when any failed, else PARTIAL; an empty drill is FAIL', () => {
  const of = (...verdicts: DrillResourceResult['verdict'][]) =>
    summarize(verdicts.map((verdict) => restored({ verdict })));
  expect(of('PASS', 'PASS')).toMatchObject({ verdict: 'PASS', passed: 2, partial: 0, failed: 0 });
  expect(of('PASS', 'PARTIAL')).toMatchObject({ verdict: 'PARTIAL', passed: 1, partial: 1, failed: 0 });
  expect(of('PARTIAL', 'FAIL')).toMatchObject({ verdict: 'FAIL', passed: 0, partial: 1, failed: 1 });
  expect(of().verdict).toBe('FAIL');
});
