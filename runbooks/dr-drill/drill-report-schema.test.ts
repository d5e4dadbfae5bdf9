// The published schema against report.ts: every field the types hold is described (a field added to report.ts without
// the schema fails here, and fails to compile until the full samples below name it), and the written samples validate.
import Ajv from 'ajv';
import { externalPassed, freshTimedOut, noPoint, v2Report, v3Report } from '../../test/helpers/drill-reports';
import schema from './drill-report.schema.json';
import {
  DRILL_REPORT_SCHEMA_VERSION,
  type DrillCheckResult,
  type DrillReport,
  type DrillResourceResult,
  type DrillSummary,
  type DrillValidationResult,
  type RecoveryPoint,
} from './report';

const validate = new Ajv({ allErrors: true, strict: true }).compile<DrillReport>(schema);
const AT = '2026-11-25T01:00:00.000Z';

const point: Required<RecoveryPoint> = {
  snapshotId: 's',
  pointInTime: AT,
  selection: 'random',
  windowDays: 30,
  draw: { candidates: 3, index: 1 },
  clean: {
    check: { name: 'orders intact', sha256: 'a'.repeat(64) },
    verdict: 'clean as of orders intact: s',
    candidates: 3,
    examined: [{ snapshotId: 's', pointInTime: AT, verdict: 'pass' }],
    queries: 1,
    nonMonotone: [],
    behindNewest: { points: 0, seconds: 0 },
  },
};
const check: Required<DrillCheckResult> = {
  query: 'q',
  expectation: 'rows >= 1',
  rows: 1,
  passed: true,
  status: 'passed',
  detail: 'd',
};
const validation: Required<DrillValidationResult> = {
  status: 'passed',
  requestedAt: AT,
  deadline: AT,
  answeredAt: AT,
  message: 'm',
  detail: 'd',
};
const resource: Required<DrillResourceResult> = {
  resourceId: 'r',
  resourceName: 'n',
  resourceType: 't',
  recoveryPoint: point,
  snapshotId: 's',
  snapshotPointInTime: AT,
  snapshotReused: false,
  backupJobId: 'b',
  restoreJobId: 'j',
  backupStatus: 'JOB_COMPLETED',
  restoreStatus: 'JOB_COMPLETED',
  restoreStatusMessage: 'm',
  rpoSeconds: 1,
  rpoPoint: { snapshotId: 'p', pointInTime: AT },
  newestBeforeDrillSeconds: 2,
  rtoSeconds: 3,
  rtoRestoreSeconds: 2,
  rtoValidationSeconds: 1,
  rpoMet: true,
  rtoMet: true,
  check,
  validation,
  cleanSearch: {
    check: { name: 'orders intact', sha256: 'b'.repeat(64) },
    verdict: 'none of the 2 recovery points in the window is clean as of orders intact',
    candidates: 2,
    examined: [{ snapshotId: 'x', pointInTime: AT, verdict: 'fail' }],
    queries: 2,
    nonMonotone: [{ passed: 'x', failedOlder: 'y' }],
  },
  verdict: 'PASS',
  reasons: [],
};
const summary: Required<DrillSummary> = {
  total: 1,
  passed: 1,
  partial: 0,
  failed: 0,
  verdict: 'PASS',
  worstRpoSeconds: 1,
  worstRtoSeconds: 3,
};
const full: Required<DrillReport> = {
  schemaVersion: DRILL_REPORT_SCHEMA_VERSION,
  name: 'nightly',
  workflowId: 'w',
  runId: 'r',
  startedAt: AT,
  finishedAt: AT,
  targets: { rpoSeconds: 60, rtoSeconds: 60 },
  resources: [resource],
  summary,
  rotation: {
    scope: 3,
    withinDays: 90,
    perRun: 1,
    picked: [{ resourceId: resource.resourceId, reason: 'oldest-pass', lastPassAt: AT }],
  },
};

interface Node {
  properties?: Record<string, Node>;
  $ref?: string;
}
const definitions = (schema as { definitions: Record<string, Node> }).definitions;
const resolve = (node: Node | undefined): Node | undefined =>
  node?.$ref ? definitions[node.$ref.replace('#/definitions/', '')] : node;
const keysOf = (node: Node | undefined) => Object.keys(resolve(node)?.properties ?? {}).sort();
const root = schema as Node;
const resourceNode = definitions.resource;

test('the schema is version 3, as the report says, and describes every field of report.ts', () => {
  expect(schema.$id).toBe(`urn:backup-runbooks:drill-report:${DRILL_REPORT_SCHEMA_VERSION}`);
  expect(schema.properties.schemaVersion.const).toBe(DRILL_REPORT_SCHEMA_VERSION);
  expect(keysOf(root)).toEqual(Object.keys(full).sort());
  expect(keysOf(root.properties?.summary)).toEqual(Object.keys(summary).sort());
  expect(keysOf(resourceNode)).toEqual(Object.keys(resource).sort());
  const field = (name: string) => resourceNode?.properties?.[name];
  expect(keysOf(field('recoveryPoint'))).toEqual(Object.keys(point).sort());
  expect(keysOf(field('check'))).toEqual(Object.keys(check).sort());
  expect(keysOf(field('validation'))).toEqual(Object.keys(validation).sort());
  expect(validate(full)).toBe(true);
  expect(validate.errors ?? []).toEqual([]);
});

test('reports of every selection, verdict and validation validate; a version 2 report is not version 3', () => {
  expect(validate(v3Report())).toBe(true);
  expect(validate.errors ?? []).toEqual([]);
  expect(validate(v2Report())).toBe(false);
  expect(validate.errors?.map((e) => e.instancePath)).toContain('/schemaVersion');
});

test('the schema refuses what a reader would misread', () => {
  const report = v3Report([freshTimedOut, noPoint, externalPassed]);
  const refused = (edit: (r: DrillReport & Record<string, unknown>) => void): string[] => {
    const copy = structuredClone(report) as DrillReport & Record<string, unknown>;
    edit(copy);
    expect(validate(copy)).toBe(false);
    return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  };
  expect(refused((r) => (r.summary.verdict = 'MAYBE' as 'PASS'))).toContain(
    '/summary/verdict must be equal to one of the allowed values',
  );
  expect(refused((r) => delete r.summary.partial)).toContain("/summary must have required property 'partial'");
  const first = (r: DrillReport) => r.resources[0] as DrillResourceResult;
  expect(refused((r) => delete (first(r) as Partial<DrillResourceResult>).verdict)).toContain(
    "/resources/0 must have required property 'verdict'",
  );
  expect(refused((r) => ((first(r).recoveryPoint as RecoveryPoint).selection = 'oldest' as 'latest'))).toContain(
    '/resources/0/recoveryPoint/selection must be equal to one of the allowed values',
  );
  expect(refused((r) => (first(r).rpoSeconds = -5))).toContain('/resources/0/rpoSeconds must be >= 0');
  expect(refused((r) => ((first(r).validation as DrillValidationResult).status = 'skipped' as 'passed'))).toContain(
    '/resources/0/validation/status must be equal to one of the allowed values',
  );
  expect(refused((r) => (r.extra = true))).toContain(' must NOT have additional properties');
});
