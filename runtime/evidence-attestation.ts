import { sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from './evidence-seal';

/**
 * Evidence as in-toto attestations, so that auditors check it with their own tools (`cosign
 * verify-blob-attestation`) rather than ours: an in-toto Statement v1 in a DSSE envelope, signed with the evidence
 * key. What the statements say is the runbook's (a drill's: runbooks/dr-drill/attestations.ts).
 */

export const DSSE_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';

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
