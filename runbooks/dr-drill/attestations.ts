import {
  reportSubjects,
  STATEMENT_TYPE,
  testResultStatement,
  type ResourceDescriptor,
  type Statement,
} from '../../runtime/evidence-attestation';
import { canonicalJson, sha256 } from '../../runtime/evidence-seal';
import type { DrillReport, DrillResourceResult } from './report';

export { runUri, TEST_RESULT_PREDICATE } from '../../runtime/evidence-attestation';

/**
 * A drill report's in-toto statements (runtime/evidence-attestation.ts signs each into a DSSE envelope). Two per
 * report, as a statement holds one predicate: the standard `test-result` one (the verdict, the input's digest, the
 * run's URL) and this project's drill predicate (the drill's own figures).
 */

/** The drill's figures. A URN: the project owns no domain to put a URL under. */
export const DRILL_PREDICATE = 'urn:backup-runbooks:attestation:drill-report:v1';

/** The file of each attestation beside the report: `<baseName>.<suffix>` (both among SEALED_RENDERINGS). */
export const ATTESTATION_FILES = { testResult: 'test-result.dsse.json', drill: 'drill.dsse.json' } as const;

/** What a drill's statements are made from: the report, its exact bytes, and where the run can be seen. */
export interface DrillAttestationSource {
  report: DrillReport;
  /** The report JSON's file name and bytes: the subject cosign hashes. */
  reportFile: string;
  reportBytes: Buffer;
  /** The drill's input, when the run passed it on: its canonical JSON's sha256 is the configuration tested. */
  input?: unknown;
  /** The run in Temporal's Web UI, or a `temporal:` URI naming it when no UI is known. */
  runUrl: string;
}

/** The report JSON by its sha256, then each restored recovery point (`reportSubjects`). */
function subjectsOf({ report, reportFile, reportBytes }: DrillAttestationSource): ResourceDescriptor[] {
  const points = report.resources
    .map((r) => r.recoveryPoint?.snapshotId ?? r.snapshotId)
    .filter((id): id is string => id !== undefined);
  return reportSubjects(reportFile, reportBytes, points);
}

/** The two statements of a drill report: `test-result` and the drill's own. */
export function drillStatements(source: DrillAttestationSource): { testResult: Statement; drill: Statement } {
  const { report } = source;
  const subject = subjectsOf(source);
  const configuration: ResourceDescriptor[] =
    source.input === undefined
      ? []
      : [{ name: 'drill input', digest: { sha256: sha256(canonicalJson(source.input)) } }];
  const testsWith = (pass: boolean) =>
    report.resources.filter((r) => (r.verdict === 'PASS') === pass).map((r) => r.resourceId);
  return {
    testResult: testResultStatement(subject, {
      // PASSED only for a drill whose verdict is PASS: a PARTIAL drill proved less than its scope.
      passed: report.summary.verdict === 'PASS',
      configuration,
      url: source.runUrl,
      passedTests: testsWith(true),
      failedTests: testsWith(false),
    }),
    drill: {
      _type: STATEMENT_TYPE,
      subject,
      predicateType: DRILL_PREDICATE,
      predicate: {
        name: report.name,
        workflowId: report.workflowId,
        runId: report.runId,
        startedAt: report.startedAt,
        finishedAt: report.finishedAt,
        targets: report.targets,
        summary: report.summary,
        resources: report.resources.map((r) => ({
          resourceId: r.resourceId,
          verdict: r.verdict,
          recoveryPointId: r.recoveryPoint?.snapshotId ?? r.snapshotId,
          rpoSeconds: r.rpoSeconds,
          rtoSeconds: r.rtoSeconds,
          rpoMet: r.rpoMet,
          rtoMet: r.rtoMet,
          // A latest-clean point: the search that chose it (or found none), so that "clean" names what judged it.
          ...cleanOf(r),
        })),
      },
    },
  };
}

/** The clean-point search of a resource, when its drill selected `latest-clean`. */
function cleanOf(r: DrillResourceResult): { clean?: NonNullable<DrillResourceResult['cleanSearch']> } {
  const clean = r.recoveryPoint?.clean ?? r.cleanSearch;
  return clean ? { clean } : {};
}
