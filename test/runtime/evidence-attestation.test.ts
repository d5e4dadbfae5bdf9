// The in-toto attestations of a drill report, without cosign: DSSE's encoding as its specification gives it, the
// envelope's signature, and what the statements say. test/runtime/attestation-cosign.test.ts (full tier) has cosign
// check the same files.
import { generateKeyPairSync } from 'node:crypto';
import {
  DRILL_PREDICATE,
  drillStatements,
  envelopeOf,
  openEnvelope,
  pae,
  runUri,
  TEST_RESULT_PREDICATE,
  type DrillAttestationSource,
} from '../../runtime/evidence-attestation';
import { canonicalJson, sha256 } from '../../runtime/evidence-seal';
import { latestPassed, randomPartial, v3Report } from '../helpers/drill-reports';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');

function source(report = v3Report([latestPassed])): DrillAttestationSource {
  const reportBytes = Buffer.from(JSON.stringify(report, null, 2) + '\n');
  return { report, reportFile: 'r.json', reportBytes, input: { name: 'nightly' }, runUrl: runUri('default', 'w', 'r') };
}

test("PAE is DSSE's, byte for byte (the specification's example)", () => {
  expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe(
    'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
  );
});

test('an envelope opens with its key, and not after one byte of its payload or signature changes', () => {
  const { testResult } = drillStatements(source());
  const envelope = envelopeOf(testResult, privateKey, 'k1');
  expect(openEnvelope(envelope, [publicKey])).toEqual(JSON.parse(canonicalJson(testResult)));
  const payload = Buffer.from(envelope.payload, 'base64');
  payload.writeUInt8(payload.readUInt8(payload.length - 2) ^ 1, payload.length - 2);
  expect(openEnvelope({ ...envelope, payload: payload.toString('base64') }, [publicKey])).toBeUndefined();
  const sig = Buffer.from(envelope.signatures[0]?.sig ?? '', 'base64');
  sig.writeUInt8(sig.readUInt8(0) ^ 1, 0);
  expect(openEnvelope({ ...envelope, signatures: [{ sig: sig.toString('base64') }] }, [publicKey])).toBeUndefined();
  expect(openEnvelope(envelope, [generateKeyPairSync('ed25519').publicKey])).toBeUndefined();
});

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

test("a run's URL is the Web UI's when one is known", () => {
  expect(runUri('prod', 'drill a', 'r1', 'https://temporal.example/')).toBe(
    'https://temporal.example/namespaces/prod/workflows/drill%20a/r1/history',
  );
});
