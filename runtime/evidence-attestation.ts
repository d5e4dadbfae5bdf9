import { sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-file';
import type { EvidenceKey } from './evidence-key';
import { canonicalJson, sha256 } from './evidence-seal';

/**
 * Evidence as in-toto attestations, so that auditors check it with their own tools (`cosign
 * verify-blob-attestation`) rather than ours: an in-toto Statement v1 in a DSSE envelope, signed with the evidence
 * key. What the statements say is the runbook's (a drill's: runbooks/dr-drill/attestations.ts; a recovery plan's:
 * runbooks/recovery-plan/attestations.ts); what every report's statements share is here.
 */

export const DSSE_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The standard predicate of a test's result: what any in-toto policy reads. */
export const TEST_RESULT_PREDICATE = 'https://in-toto.io/attestation/test-result/v0.1';

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

/**
 * The subjects of a report's statements: the report's JSON by its sha256 (what cosign hashes), then each recovery
 * point it restored. The service gives no digest of a recovery point's content, so its descriptor carries the sha256 of
 * its ID, with the ID itself in `annotations`.
 */
export function reportSubjects(
  reportFile: string,
  reportBytes: Buffer,
  recoveryPointIds: Iterable<string>,
): ResourceDescriptor[] {
  return [
    { name: reportFile, digest: { sha256: sha256(reportBytes) } },
    ...[...new Set(recoveryPointIds)].sort().map((id) => ({
      name: `recovery-point/${id}`,
      digest: { sha256: sha256(id) },
      annotations: { recoveryPointId: id },
    })),
  ];
}

/** What a report's `test-result` statement says, whatever ran the test. */
export interface TestResult {
  passed: boolean;
  /** What was tested, by digest: a drill's input, a recovery plan. */
  configuration: ResourceDescriptor[];
  /** The run in Temporal's Web UI, or a `temporal:` URI naming it (`runUri`). */
  url: string;
  passedTests: string[];
  failedTests: string[];
}

/** The standard `test-result` statement of a report. */
export function testResultStatement(subject: ResourceDescriptor[], result: TestResult): Statement {
  return {
    _type: STATEMENT_TYPE,
    subject,
    predicateType: TEST_RESULT_PREDICATE,
    predicate: {
      result: result.passed ? 'PASSED' : 'FAILED',
      configuration: result.configuration,
      url: result.url,
      passedTests: result.passedTests,
      failedTests: result.failedTests,
    },
  };
}

/** `temporal:` URI of a run, for a report written where no Web UI address is configured. */
export function runUri(namespace: string, workflowId: string, runId: string, uiBaseUrl?: string): string {
  const path = `namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`;
  return uiBaseUrl ? `${uiBaseUrl.replace(/\/+$/, '')}/${path}/history` : `temporal:///${path}`;
}

/**
 * Writes each statement beside the report at `jsonPath`, signed into its DSSE envelope, as `<base>.<suffix>` (each
 * suffix among SEALED_RENDERINGS, so that the report's seal covers it). Written before the seal, atomically.
 */
export async function writeAttestations(
  key: EvidenceKey,
  jsonPath: string,
  statements: Readonly<Record<string, Statement>>,
): Promise<void> {
  const base = jsonPath.slice(0, -'.json'.length);
  for (const [suffix, statement] of Object.entries(statements)) {
    const envelope = envelopeOf(statement, key.privateKey, key.keyId);
    await writeFileAtomic(`${base}.${suffix}`, JSON.stringify(envelope, null, 2) + '\n');
  }
}
