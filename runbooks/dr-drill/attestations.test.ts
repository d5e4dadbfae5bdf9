// What a drill report's in-toto statements say: the report by digest, its recovery points, the verdict, the input's
// digest and the run's URL. test/runtime/evidence-attestation.test.ts tests their DSSE envelopes.
import { latestPassed, randomPartial, v3Report } from '../../test/helpers/drill-reports';
import { canonicalJson, sha256 } from '../../runtime/evidence-seal';
import {
  DRILL_PREDICATE,
  drillStatements,
  runUri,
  TEST_RESULT_PREDICATE,
  type DrillAttestationSource,
} from './attestations';

function source(report = v3Report([latestPassed])): DrillAttestationSource {
  const reportBytes = Buffer.from(JSON.stringify(report, null, 2) + '\n');
  return { report, reportFile: 'r.json', reportBytes, input: { name: 'nightly' }, runUrl: runUri('default', 'w', 'r') };
}

test('the test-result statement: the report by digest, its recovery points, PASSED only for PASS, the input digest', () => {
  const given = source();
  const { testResult, drill } = drillStatements(given);
  expect(testResult.predicateType).toBe(TEST_RESULT_PREDICATE);
  expect(drill.predicateType).toBe(DRILL_PREDICATE);
  expect(testResult.subject[0]).toEqual({ name: 'r.json', digest: { sha256: sha256(given.reportBytes) } });
  const point = latestPassed.recoveryPoint?.snapshotId ?? '';
  expect(testResult.subject[1]).toMatchObject({
    name: `recovery-point/${point}`,
    annotations: { recoveryPointId: point },
  });
  expect(testResult.predicate).toMatchObject({
    result: 'PASSED',
    configuration: [{ digest: { sha256: sha256(canonicalJson({ name: 'nightly' })) } }],
    url: 'temporal:///namespaces/default/workflows/w/r',
    passedTests: [latestPassed.resourceId],
    failedTests: [],
  });
  const partial = drillStatements(source(v3Report([latestPassed, randomPartial]))).testResult.predicate;
  expect(partial).toMatchObject({ result: 'FAILED', failedTests: [randomPartial.resourceId] });
});

test("the drill statement: the drill's own figures, each resource with the recovery point it restored", () => {
  const given = source(v3Report([latestPassed, randomPartial]));
  const { testResult, drill } = drillStatements(given);
  expect(drill.subject).toEqual(testResult.subject);
  const { report } = given;
  expect(drill.predicate).toMatchObject({
    name: report.name,
    workflowId: report.workflowId,
    runId: report.runId,
    targets: report.targets,
    summary: report.summary,
  });
  const resources = drill.predicate.resources as { resourceId: string; verdict: string; recoveryPointId?: string }[];
  expect(resources.map((r) => [r.resourceId, r.verdict, r.recoveryPointId])).toEqual(
    report.resources.map((r) => [r.resourceId, r.verdict, r.recoveryPoint?.snapshotId ?? r.snapshotId]),
  );
});

test('without the drill input the test-result statement names no configuration', () => {
  const { input: _input, ...withoutInput } = source();
  expect(drillStatements(withoutInput).testResult.predicate).toMatchObject({ configuration: [] });
});

test("a run's URL is the Web UI's when one is known", () => {
  expect(runUri('prod', 'drill a', 'r1', 'https://temporal.example/')).toBe(
    'https://temporal.example/namespaces/prod/workflows/drill%20a/r1/history',
  );
});

test('a latest-clean point carries its search into the drill statement; other points carry none', () => {
  const clean = {
    check: { name: 'orders intact', sha256: 'c'.repeat(64) },
    verdict: 'clean as of orders intact: snap-clean',
    candidates: 32,
    examined: [
      { snapshotId: 'snap-new', pointInTime: '2026-11-24T00:00:00.000Z', verdict: 'fail' as const },
      { snapshotId: 'snap-clean', pointInTime: '2026-11-23T00:00:00.000Z', verdict: 'pass' as const },
    ],
    queries: 2,
    nonMonotone: [],
  };
  const cleanPassed = {
    ...latestPassed,
    resourceId: 'r-clean',
    recoveryPoint: {
      snapshotId: 'snap-clean',
      pointInTime: '2026-11-23T00:00:00.000Z',
      selection: 'latest-clean' as const,
      windowDays: 30,
      clean: { ...clean, behindNewest: { points: 1, seconds: 86400 } },
    },
  };
  const { drill } = drillStatements(source(v3Report([cleanPassed, latestPassed])));
  const resources = drill.predicate.resources as { resourceId: string; clean?: typeof clean }[];
  expect(resources.find((r) => r.resourceId === 'r-clean')?.clean).toMatchObject({
    check: clean.check,
    verdict: clean.verdict,
    examined: clean.examined,
  });
  expect(resources.find((r) => r.resourceId === latestPassed.resourceId)).not.toHaveProperty('clean');
});
