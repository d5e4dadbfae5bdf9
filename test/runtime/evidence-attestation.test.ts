// The DSSE envelope of an in-toto statement, without cosign: DSSE's encoding as its specification gives it, and the
// envelope's signature. What a drill's statements say is tested in runbooks/dr-drill/attestations.test.ts;
// test/runtime/attestation-cosign.test.ts (full tier) has cosign check the files a drill writes.
import { generateKeyPairSync } from 'node:crypto';
import { envelopeOf, openEnvelope, pae, STATEMENT_TYPE, type Statement } from '../../runtime/evidence-attestation';
import { canonicalJson, sha256 } from '../../runtime/evidence-seal';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');

const statement: Statement = {
  _type: STATEMENT_TYPE,
  subject: [{ name: 'r.json', digest: { sha256: sha256('{}\n') } }],
  predicateType: 'urn:example:predicate',
  predicate: { result: 'PASSED', figures: [1, 2] },
};

test("PAE is DSSE's, byte for byte (the specification's example)", () => {
  expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe(
    'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
  );
});

test('an envelope opens with its key, and not after one byte of its payload or signature changes', () => {
  const envelope = envelopeOf(statement, privateKey, 'k1');
  expect(envelope.signatures).toEqual([{ keyid: 'k1', sig: expect.any(String) as string }]);
  expect(openEnvelope(envelope, [publicKey])).toEqual(JSON.parse(canonicalJson(statement)));
  const payload = Buffer.from(envelope.payload, 'base64');
  payload.writeUInt8(payload.readUInt8(payload.length - 2) ^ 1, payload.length - 2);
  expect(openEnvelope({ ...envelope, payload: payload.toString('base64') }, [publicKey])).toBeUndefined();
  const sig = Buffer.from(envelope.signatures[0]?.sig ?? '', 'base64');
  sig.writeUInt8(sig.readUInt8(0) ^ 1, 0);
  expect(openEnvelope({ ...envelope, signatures: [{ sig: sig.toString('base64') }] }, [publicKey])).toBeUndefined();
  expect(openEnvelope(envelope, [generateKeyPairSync('ed25519').publicKey])).toBeUndefined();
  // The payload's type is signed too: another type does not open.
  expect(openEnvelope({ ...envelope, payloadType: 'application/json' }, [publicKey])).toBeUndefined();
});
