// What a recovery plan report's in-toto statements say: the report by digest, its recovery points, the verdict with the
// RTO against its target, the plan's digest and the run's URL. test/runtime/plan-attestations.test.ts checks the
// envelopes the plan's activity writes.
import { failedPlan, passedPlan } from '../../test/helpers/plan-reports';
import { runUri, TEST_RESULT_PREDICATE } from '../../runtime/evidence-attestation';
import { sha256 } from '../../runtime/evidence-seal';
import { PLAN_PREDICATE, planStatements, RTO_TEST, type PlanAttestationSource } from './attestations';
import type { PlanReport } from './contract';

function source(report: PlanReport = passedPlan): PlanAttestationSource {
  const reportBytes = Buffer.from(JSON.stringify(report, null, 2) + '\n');
  return { report, reportFile: 'plan.json', reportBytes, runUrl: runUri('default', report.workflowId, report.runId) };
}

test('the test-result statement: the report by digest, each recovery point once, PASSED, the plan by its sha256', () => {
  const given = source();
  const { testResult, plan } = planStatements(given);
  expect(testResult.predicateType).toBe(TEST_RESULT_PREDICATE);
  expect(plan.predicateType).toBe(PLAN_PREDICATE);
  expect(plan.subject).toEqual(testResult.subject);
  expect(testResult.subject[0]).toEqual({ name: 'plan.json', digest: { sha256: sha256(given.reportBytes) } });
  // Four resources restored from four points: each once, sorted, by the sha256 of its ID.
  const points = (passedPlan.commonPoint?.resources ?? []).map((r) => r.snapshotId).sort();
  expect(points).toHaveLength(4);
  expect(testResult.subject.slice(1)).toEqual(
    points.map((id) => ({
      name: `recovery-point/${id}`,
      digest: { sha256: sha256(id) },
      annotations: { recoveryPointId: id },
    })),
  );
  expect(testResult.predicate).toEqual({
    result: 'PASSED',
    configuration: [{ name: 'recovery plan', digest: { sha256: passedPlan.planSha256 } }],
    url: `temporal:///namespaces/default/workflows/${passedPlan.workflowId}/${passedPlan.runId}`,
    passedTests: passedPlan.steps.map((s) => s.id),
    failedTests: [],
  });
});

test('FAILED for a failed step, and for a PASS whose RTO missed its target, which is named among the failed tests', () => {
  const failed = planStatements(source(failedPlan)).testResult.predicate;
  expect(failed).toMatchObject({ result: 'FAILED', failedTests: ['vm-api', RTO_TEST] });
  // Skipped steps neither passed nor failed.
  expect(failed.passedTests).toEqual(['database', 'database-check', 'bucket', 'vm-web']);

  const slow = { ...passedPlan, rto: { ...passedPlan.rto, targetSeconds: 3600, met: false } };
  expect(planStatements(source(slow)).testResult.predicate).toMatchObject({
    result: 'FAILED',
    failedTests: [RTO_TEST],
  });
});

test("the plan statement: the plan's name and digest, verdict, RTO against its target, common point and steps", () => {
  const { plan } = planStatements(source(failedPlan));
  expect(plan.predicate).toEqual({
    name: 'payments',
    planSha256: failedPlan.planSha256,
    mode: 'drill',
    workflowId: failedPlan.workflowId,
    runId: failedPlan.runId,
    startedAt: failedPlan.startedAt,
    finishedAt: failedPlan.finishedAt,
    verdict: 'FAIL',
    failedSteps: ['vm-api'],
    rto: { seconds: 3900, targetSeconds: 3600, met: false, criticalPath: failedPlan.rto.criticalPath },
    rpoSeconds: 2520,
    commonPoint: failedPlan.commonPoint,
    steps: failedPlan.steps.map((s) => ({ id: s.id, kind: s.kind, status: s.status })),
  });
});

test('a plan that restored nothing has the report alone as subject, and no common point', () => {
  const { commonPoint: _point, rpoSeconds: _rpo, ...rest } = passedPlan;
  const manual: PlanReport = {
    ...rest,
    steps: passedPlan.steps.filter((s) => s.kind !== 'restore').map((s) => ({ ...s, resources: undefined })),
  };
  const { plan } = planStatements(source(manual));
  expect(plan.subject).toHaveLength(1);
  expect(plan.predicate).not.toHaveProperty('commonPoint');
});
