import { sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson, sha256 } from './evidence-seal';

/**
 * A drill report as in-toto attestations, so that auditors check it with their own tools (`cosign
 * verify-blob-attestation`) rather than ours: an in-toto Statement v1 in a DSSE envelope, signed with the evidence
 * key. Two statements per report, as a statement holds one predicate: the standard `test-result` one (the verdict,
 * the input's digest, the run's URL) and this project's drill predicate (the drill's own figures).
 */

export const DSSE_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const TEST_RESULT_PREDICATE = 'https://in-toto.io/attestation/test-result/v0.1';
/** The drill's figures. A URN: the project owns no domain to put a URL under. */
export const DRILL_PREDICATE = 'urn:backup-runbooks:attestation:drill-report:v1';

/** The file of each attestation beside the report: `<baseName>.<suffix>`. */
export const ATTESTATION_FILES = { testResult: 'test-result.dsse.json', drill: 'drill.dsse.json' } as const;

/** An attestation's file, which is JSON but no report. */
export const isAttestationFile = (name: string) => Object.values(ATTESTATION_FILES).some((f) => name.endsWith(`.${f}`));

export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest?: Record<string, string>;
  annotations?: Record<string, unknown>;
}

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: ResourceDescriptor[];
  predicateType: string;
  predicate: Record<string, unknown>;
}

export const Envelope = z.strictObject({
  payloadType: z.string(),
  payload: z.string(),
  signatures: z.array(z.strictObject({ keyid: z.string().optional(), sig: z.string() })).min(1),
});
export type Envelope = z.infer<typeof Envelope>;

/** DSSE's pre-authentication encoding: what the signature covers, so that the payload's type is signed too. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'utf8'),
    type,
    Buffer.from(` ${payload.length} `, 'utf8'),
    payload,
  ]);
}

/** The statement in a DSSE envelope, signed with `privateKey` (Ed25519: the same bytes give the same envelope). */
export function envelopeOf(statement: Statement, privateKey: KeyObject, keyId: string): Envelope {
  const payload = Buffer.from(canonicalJson(statement), 'utf8');
  const sig = sign(null, pae(DSSE_PAYLOAD_TYPE, payload), privateKey).toString('base64');
  return { payloadType: DSSE_PAYLOAD_TYPE, payload: payload.toString('base64'), signatures: [{ keyid: keyId, sig }] };
}

/** The statement of an envelope whose signature verifies against one of `keys`; undefined otherwise. */
export function openEnvelope(envelope: Envelope, keys: readonly KeyObject[]): Statement | undefined {
  if (envelope.payloadType !== DSSE_PAYLOAD_TYPE) return undefined;
  const payload = Buffer.from(envelope.payload, 'base64');
  const signed = pae(envelope.payloadType, payload);
  const verified = envelope.signatures.some((s) =>
    keys.some((key) => verify(null, signed, key, Buffer.from(s.sig, 'base64'))),
  );
  if (!verified) return undefined;
  try {
    return JSON.parse(payload.toString('utf8')) as Statement;
  } catch {
    return undefined;
  }
}

/** What a drill's statements are made from: the report, its exact bytes, and where the run can be seen. */
export interface DrillAttestationSource {
  report: {
    name: string;
    workflowId: string;
    runId: string;
    startedAt: string;
    finishedAt: string;
    targets: { rpoSeconds: number; rtoSeconds: number };
    summary: { verdict: string; total: number; passed: number; failed: number };
    resources: readonly {
      resourceId: string;
      verdict: string;
      recoveryPoint?: { snapshotId: string };
      snapshotId?: string;
      rpoSeconds?: number;
      rtoSeconds?: number;
      rpoMet?: boolean;
      rtoMet?: boolean;
    }[];
  };
  /** The report JSON's file name and bytes: the subject cosign hashes. */
  reportFile: string;
  reportBytes: Buffer;
  /** The drill's input, when the run passed it on: its canonical JSON's sha256 is the configuration tested. */
  input?: unknown;
  /** The run in Temporal's Web UI, or a `temporal:` URI naming it when no UI is known. */
  runUrl: string;
}

/**
 * The report JSON by its sha256, then each restored recovery point. The service gives no digest of a recovery point's
 * content, so its descriptor carries the sha256 of its ID, with the ID itself in `annotations`.
 */
function subjectsOf({ report, reportFile, reportBytes }: DrillAttestationSource): ResourceDescriptor[] {
  const points = new Set(
    report.resources
      .map((r) => r.recoveryPoint?.snapshotId ?? r.snapshotId)
      .filter((id): id is string => id !== undefined),
  );
  return [
    { name: reportFile, digest: { sha256: sha256(reportBytes) } },
    ...[...points].sort().map((id) => ({
      name: `recovery-point/${id}`,
      digest: { sha256: sha256(id) },
      annotations: { recoveryPointId: id },
    })),
  ];
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
    testResult: {
      _type: STATEMENT_TYPE,
      subject,
      predicateType: TEST_RESULT_PREDICATE,
      predicate: {
        // PASSED only for a drill whose verdict is PASS: a PARTIAL drill proved less than its scope.
        result: report.summary.verdict === 'PASS' ? 'PASSED' : 'FAILED',
        configuration,
        url: source.runUrl,
        passedTests: testsWith(true),
        failedTests: testsWith(false),
      },
    },
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
        })),
      },
    },
  };
}

/** `temporal:` URI of a run, for a report written where no Web UI address is configured. */
export function runUri(namespace: string, workflowId: string, runId: string, uiBaseUrl?: string): string {
  const path = `namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`;
  return uiBaseUrl ? `${uiBaseUrl.replace(/\/+$/, '')}/${path}/history` : `temporal:///${path}`;
}
