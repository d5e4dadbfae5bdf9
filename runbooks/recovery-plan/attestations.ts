import {
  reportSubjects,
  STATEMENT_TYPE,
  testResultStatement,
  type Statement,
} from '../../runtime/evidence-attestation';
import type { PlanReport } from './contract';

/**
 * A recovery plan report's in-toto statements, as a drill's are (runbooks/dr-drill/attestations.ts): the standard
 * `test-result` one and this project's plan predicate (the plan's own figures), each signed into a DSSE envelope
 * beside the report and covered by its seal.
 */

/** The plan's figures. A URN, as the drill's: the project owns no domain to put a URL under. */
export const PLAN_PREDICATE = 'urn:backup-runbooks:attestation:recovery-plan-report:v1';

/** The file of each attestation beside the report: `<baseName>.<suffix>` (both among SEALED_RENDERINGS). */
export const PLAN_ATTESTATION_FILES = { testResult: 'test-result.dsse.json', plan: 'plan.dsse.json' } as const;

/** The test name of the RTO among `failedTests`: upper case and a space, so that no step ID can take it. */
export const RTO_TEST = 'RTO target';

/** What a plan's statements are made from: the report, its exact bytes, and where the run can be seen. */
export interface PlanAttestationSource {
  report: PlanReport;
  /** The report JSON's file name and bytes: the subject cosign hashes. */
  reportFile: string;
  reportBytes: Buffer;
  /** The run in Temporal's Web UI, or a `temporal:` URI naming it (`runUri`). */
  runUrl: string;
}

/** Every recovery point the plan restored: the common point's, and any a step names besides. */
function recoveryPointsOf(report: PlanReport): string[] {
  return [
    ...(report.commonPoint?.resources ?? []).map((r) => r.snapshotId),
    ...report.steps.flatMap((s) => (s.resources ?? []).map((r) => r.snapshotId)),
  ];
}

/** The two statements of a plan report: `test-result` and the plan's own. */
export function planStatements(source: PlanAttestationSource): { testResult: Statement; plan: Statement } {
  const { report } = source;
  const subject = reportSubjects(source.reportFile, source.reportBytes, recoveryPointsOf(report));
  const steps = (status: PlanReport['steps'][number]['status']) =>
    report.steps.filter((s) => s.status === status).map((s) => s.id);
  const { rto, commonPoint } = report;
  return {
    testResult: testResultStatement(subject, {
      // PASSED only when every step passed and the RTO met its target, as the drill's counts its targets.
      passed: report.verdict === 'PASS' && rto.met,
      // What was tested: the plan itself, by the sha256 of its canonical JSON that the report gives.
      configuration: [{ name: 'recovery plan', digest: { sha256: report.planSha256 } }],
      url: source.runUrl,
      passedTests: steps('passed'),
      failedTests: [...steps('failed'), ...(rto.met ? [] : [RTO_TEST])],
    }),
    plan: {
      _type: STATEMENT_TYPE,
      subject,
      predicateType: PLAN_PREDICATE,
      predicate: {
        name: report.name,
        planSha256: report.planSha256,
        mode: report.mode,
        workflowId: report.workflowId,
        runId: report.runId,
        startedAt: report.startedAt,
        finishedAt: report.finishedAt,
        verdict: report.verdict,
        failedSteps: report.failedSteps,
        rto: {
          seconds: rto.seconds,
          targetSeconds: rto.targetSeconds,
          met: rto.met,
          criticalPath: rto.criticalPath,
        },
        rpoSeconds: report.rpoSeconds,
        ...(commonPoint
          ? {
              commonPoint: {
                target: commonPoint.target,
                at: commonPoint.at,
                skewSeconds: commonPoint.skewSeconds,
                maxSkewSeconds: commonPoint.maxSkewSeconds,
                resources: commonPoint.resources,
              },
            }
          : {}),
        steps: report.steps.map((s) => ({ id: s.id, kind: s.kind, status: s.status })),
      },
    },
  };
}
