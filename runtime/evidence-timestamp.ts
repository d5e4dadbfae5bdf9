import { createHash, randomBytes, verify as verifySignature, X509Certificate } from 'node:crypto';
import {
  childrenOf,
  contextTag,
  type Der,
  DerError,
  encodeDer,
  encodeOid,
  encodeUnsigned,
  expectTag,
  integerHex,
  oidOf,
  present,
  readDer,
  TAG,
  timeOf,
} from './der';

/**
 * Trusted time for evidence (RFC 3161): a time-stamping authority signs that a digest existed at its time, so a seal
 * cannot be dated by its signer's clock alone. Tokens are kept as the authority's whole response, `<file>.tsr`, which
 * `openssl ts -verify -data <file> -in <file>.tsr -CAfile <chain>` checks with no tool of ours.
 */

export const TIMESTAMP_SUFFIX = '.tsr';

const OID = {
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  sha1: '1.3.14.3.2.26',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  timeStamping: '1.3.6.1.5.5.7.3.8',
} as const;

/** Signature algorithms a token may name (ECDSA, RSA PKCS #1 v1.5, Ed25519), with the hash each implies, if any. */
const SIGNATURE_ALGORITHMS: Readonly<Record<string, string | undefined>> = {
  '1.2.840.10045.2.1': undefined,
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.2.840.113549.1.1.1': undefined,
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.3.101.112': undefined,
};

const HASH_OF_OID: Readonly<Record<string, string>> = {
  [OID.sha256]: 'sha256',
  [OID.sha384]: 'sha384',
  [OID.sha512]: 'sha512',
  [OID.sha1]: 'sha1',
};

/** A token that is not one, does not cover the data, or is not vouched for by the authority given. */
export class TimestampError extends Error {
  override name = 'TimestampError';
}

/** The authority could not be asked, or refused: the evidence stays without a token and a retry asks again. */
export class TimestampAuthorityError extends Error {
  override name = 'TimestampAuthorityError';
}

/** What a verified token says. */
export interface TimestampFacts {
  /** The authority's time for the digest. */
  genTime: Date;
  /** The signer certificate's subject, e.g. `O=local, CN=Test TSA Timestamping`. */
  authority: string;
  serialNumber: string;
  policy: string;
}

/** A DER TimeStampReq for a sha256 digest, asking for the signer's certificate, with a random nonce. */
export function timestampRequest(sha256Hex: string, nonce: Buffer = randomBytes(8)): Buffer {
  const digest = Buffer.from(sha256Hex, 'hex');
  if (digest.length !== 32) throw new TypeError('a sha256 digest is 32 bytes');
  const algorithm = encodeDer(TAG.sequence, [encodeOid(OID.sha256), encodeDer(TAG.null, Buffer.alloc(0))]);
  const imprint = encodeDer(TAG.sequence, [algorithm, encodeDer(TAG.octetString, digest)]);
  const certReq = encodeDer(TAG.boolean, Buffer.from([0xff]));
  return encodeDer(TAG.sequence, [encodeUnsigned(Buffer.from([1])), imprint, encodeUnsigned(nonce), certReq]);
}

/**
 * Asks the authority at `url` for a token over `sha256Hex` (POST application/timestamp-query). Returns its response,
 * checked to be granted, for this digest and with this request's nonce. Throws TimestampAuthorityError otherwise.
 */
export async function requestTimestamp(url: string, sha256Hex: string, timeoutMs = 10_000): Promise<Buffer> {
  const nonce = randomBytes(8);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
      body: new Uint8Array(timestampRequest(sha256Hex, nonce)),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new TimestampAuthorityError(`${url} could not be reached (${cause})`);
  }
  const body = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new TimestampAuthorityError(`${url} answered HTTP ${response.status}`);
  try {
    const token = readTimestampResponse(body);
    if (token.imprint.digest !== sha256Hex) throw new TimestampError('the token covers another digest');
    if (token.nonce !== integerHex(readDer(encodeUnsigned(nonce)))) throw new TimestampError('the nonce differs');
  } catch (err) {
    throw new TimestampAuthorityError(`${url} answered with no usable token: ${(err as Error).message}`);
  }
  return body;
}

interface ParsedToken {
  imprint: { hash: string; digest: string };
  nonce?: string;
  genTime: Date;
  serialNumber: string;
  policy: string;
  /** The DER TSTInfo the signature's message digest covers. */
  tstInfo: Buffer;
  certificates: X509Certificate[];
  signer: {
    identifies: (cert: X509Certificate) => boolean;
    digestHash: string;
    signedAttributes: Buffer;
    attributes: Map<string, Der>;
    signatureAlgorithm: string;
    signature: Buffer;
  };
}

/** Reads a TimeStampResp (RFC 3161 §2.4.2): granted, with a SignedData token over a TSTInfo. */
export function readTimestampResponse(data: Buffer): ParsedToken {
  try {
    const [status, token] = childrenOf(expectTag(readDer(data), TAG.sequence, 'TimeStampResp'));
    const code = Number.parseInt(integerHex(childrenOf(expectTag(status, TAG.sequence, 'PKIStatusInfo'))[0]), 16);
    if (code !== 0 && code !== 1) throw new TimestampError(`the authority refused (PKIStatus ${code})`);
    if (!token) throw new TimestampError('the response holds no token');
    return readToken(token);
  } catch (err) {
    if (err instanceof DerError) throw new TimestampError(`not a time-stamp response: ${err.message}`);
    throw err;
  }
}

function readToken(contentInfo: Der): ParsedToken {
  const [type, explicit] = childrenOf(expectTag(contentInfo, TAG.sequence, 'ContentInfo'));
  if (oidOf(type) !== OID.signedData) throw new TimestampError('the token is not CMS SignedData');
  const signedData = childrenOf(
    expectTag(childrenOf(expectTag(explicit, contextTag(0), 'content'))[0], TAG.sequence, 'SignedData'),
  );
  const [, , encapsulated, ...rest] = signedData;
  const [eType, eContent] = childrenOf(expectTag(encapsulated, TAG.sequence, 'EncapsulatedContentInfo'));
  if (oidOf(eType) !== OID.tstInfo) throw new TimestampError('the token does not hold a TSTInfo');
  const tstInfo = expectTag(
    childrenOf(expectTag(eContent, contextTag(0), 'eContent'))[0],
    TAG.octetString,
    'eContent',
  ).content;
  const certificates = rest
    .filter((e) => e.tag === contextTag(0))
    .flatMap((e) => childrenOf(e).map((c) => new X509Certificate(c.encoded)));
  const signerInfos = childrenOf(expectTag(rest.at(-1), TAG.set, 'SignerInfos'));
  if (signerInfos.length !== 1) throw new TimestampError(`the token has ${signerInfos.length} signers, not one`);
  return { ...readTstInfo(tstInfo), tstInfo, certificates, signer: readSignerInfo(present(signerInfos[0])) };
}

function readTstInfo(data: Buffer) {
  const [, policy, imprint, serial, genTime, ...optional] = childrenOf(
    expectTag(readDer(data), TAG.sequence, 'TSTInfo'),
  );
  const [algorithm, digest] = childrenOf(expectTag(imprint, TAG.sequence, 'MessageImprint'));
  const nonce = optional.find((e) => e.tag === TAG.integer);
  return {
    policy: oidOf(policy),
    imprint: {
      hash: hashOf(algorithm),
      digest: expectTag(digest, TAG.octetString, 'hashedMessage').content.toString('hex'),
    },
    serialNumber: integerHex(serial),
    genTime: timeOf(expectTag(genTime, TAG.generalizedTime, 'genTime')),
    ...(nonce ? { nonce: integerHex(nonce) } : {}),
  };
}

function hashOf(algorithmIdentifier: Der | undefined): string {
  const oid = oidOf(childrenOf(expectTag(algorithmIdentifier, TAG.sequence, 'AlgorithmIdentifier'))[0]);
  const hash = HASH_OF_OID[oid];
  if (!hash) throw new TimestampError(`unsupported digest algorithm ${oid}`);
  return hash;
}

function readSignerInfo(signerInfo: Der): ParsedToken['signer'] {
  const [, sid, digestAlgorithm, signedAttrs, signatureAlgorithm, signature] = childrenOf(
    expectTag(signerInfo, TAG.sequence, 'SignerInfo'),
  );
  const attributesSet = expectTag(signedAttrs, contextTag(0), 'signedAttrs');
  const attributes = new Map<string, Der>();
  for (const attribute of childrenOf(attributesSet)) {
    const [type, values] = childrenOf(attribute);
    attributes.set(oidOf(type), present(childrenOf(expectTag(values, TAG.set, 'attribute values'))[0]));
  }
  return {
    identifies: identifierOf(sid),
    digestHash: hashOf(digestAlgorithm),
    // The signature covers the attributes encoded as a SET, not with their [0] tag (RFC 5652 §5.4).
    signedAttributes: Buffer.concat([Buffer.from([TAG.set]), attributesSet.encoded.subarray(1)]),
    attributes,
    signatureAlgorithm: oidOf(childrenOf(expectTag(signatureAlgorithm, TAG.sequence, 'signatureAlgorithm'))[0]),
    signature: expectTag(signature, TAG.octetString, 'signature').content,
  };
}

/** Which certificate a SignerIdentifier names: by issuer and serial number, or by subject key identifier. */
function identifierOf(given: Der | undefined): (cert: X509Certificate) => boolean {
  const sid = present(given, 'sid');
  if (sid.tag === TAG.sequence) {
    const [issuer, serial] = childrenOf(sid);
    return (cert) => {
      const tbs = childrenOf(childrenOf(readDer(cert.raw))[0]);
      const fields = tbs[0]?.tag === contextTag(0) ? tbs.slice(1) : tbs;
      return integerHex(fields[0]) === integerHex(serial) && present(fields[2]).encoded.equals(present(issuer).encoded);
    };
  }
  const keyId = sid.content.toString('hex');
  return (cert) => subjectKeyIdOf(cert) === keyId;
}

function subjectKeyIdOf(cert: X509Certificate): string | undefined {
  const tbs = childrenOf(childrenOf(readDer(cert.raw))[0]);
  const extensions = tbs.find((e) => e.tag === contextTag(3));
  if (!extensions) return undefined;
  for (const extension of childrenOf(childrenOf(extensions)[0])) {
    const [id, ...rest] = childrenOf(extension);
    if (oidOf(id) === '2.5.29.14') return readDer(rest.at(-1)?.content ?? Buffer.alloc(0)).content.toString('hex');
  }
  return undefined;
}

export interface TimestampCheck {
  /** sha256 of the data the token must cover. */
  sha256Hex: string;
  /** The authority's certificates obtained out of band (`--tsa-cert`): every one is trusted, as `openssl -CAfile`. */
  trusted: readonly X509Certificate[];
}

/**
 * Verifies a token as `openssl ts -verify` does: it covers the digest, its signed attributes match its TSTInfo and
 * its signer certificate, the signature holds, and the signer, a time-stamping certificate valid at the token's
 * time, chains to a trusted certificate. Returns what it says; throws TimestampError naming the first fault.
 */
export function verifyTimestamp(response: Buffer, check: TimestampCheck): TimestampFacts {
  const token = readTimestampResponse(response);
  if (token.imprint.hash !== 'sha256' || token.imprint.digest !== check.sha256Hex) {
    throw new TimestampError('the token covers other data');
  }
  const { signer } = token;
  const implied = SIGNATURE_ALGORITHMS[signer.signatureAlgorithm];
  if (!Object.hasOwn(SIGNATURE_ALGORITHMS, signer.signatureAlgorithm) || (implied && implied !== signer.digestHash)) {
    throw new TimestampError(`unsupported signature algorithm ${signer.signatureAlgorithm}`);
  }
  const contentType = signer.attributes.get(OID.contentType);
  if (!contentType || oidOf(contentType) !== OID.tstInfo)
    throw new TimestampError('the signed content type is not TSTInfo');
  const messageDigest = signer.attributes.get(OID.messageDigest);
  const tstDigest = createHash(signer.digestHash).update(token.tstInfo).digest();
  if (!messageDigest || !messageDigest.content.equals(tstDigest)) throw new TimestampError('the TSTInfo was changed');

  // As openssl does, the signer's certificate comes with the token (it is asked for): a trusted copy does not stand in.
  const signerCert = token.certificates.find((cert) => signer.identifies(cert));
  if (!signerCert) throw new TimestampError("the token does not carry its signer's certificate");
  checkSigningCertificate(signer.attributes, signerCert);
  let signatureHolds = false;
  try {
    signatureHolds = verifySignature(
      signer.digestHash,
      signer.signedAttributes,
      signerCert.publicKey,
      signer.signature,
    );
  } catch {
    signatureHolds = false;
  }
  if (!signatureHolds) throw new TimestampError("the authority's signature does not hold");
  if (!signerCert.keyUsage?.includes(OID.timeStamping)) {
    throw new TimestampError(`${signerCert.subject.replace(/\n/g, ', ')} is not a time-stamping certificate`);
  }
  checkChain(signerCert, token.certificates, check.trusted, token.genTime);
  return {
    genTime: token.genTime,
    authority: signerCert.subject.replace(/\n/g, ', '),
    serialNumber: token.serialNumber,
    policy: token.policy,
  };
}

/** The ESS signing-certificate attribute binds the signature to one certificate (RFC 3161 §2.4.1, RFC 5816). */
function checkSigningCertificate(attributes: Map<string, Der>, cert: X509Certificate) {
  const v2 = attributes.get(OID.signingCertificateV2);
  const v1 = attributes.get(OID.signingCertificate);
  const value = v2 ?? v1;
  if (!value) throw new TimestampError('the token does not name its signing certificate');
  const first = childrenOf(childrenOf(value)[0])[0];
  const fields = childrenOf(first);
  const hash = v2 ? (fields[0]?.tag === TAG.sequence ? hashOf(fields[0]) : 'sha256') : 'sha1';
  const certHash = fields.find((f) => f.tag === TAG.octetString);
  if (!certHash?.content.equals(createHash(hash).update(cert.raw).digest())) {
    throw new TimestampError('the token names another signing certificate');
  }
}

function validAt(cert: X509Certificate, time: Date): boolean {
  return new Date(cert.validFrom) <= time && time <= new Date(cert.validTo);
}

function checkChain(
  leaf: X509Certificate,
  carried: readonly X509Certificate[],
  trusted: readonly X509Certificate[],
  at: Date,
) {
  const name = (cert: X509Certificate) => cert.subject.replace(/\n/g, ', ');
  let cert = leaf;
  for (let depth = 0; depth < 8; depth++) {
    if (!validAt(cert, at)) throw new TimestampError(`${name(cert)} was not valid at the token's time`);
    if (trusted.some((t) => t.raw.equals(cert.raw))) return;
    const current = cert;
    const issuer = [...trusted, ...carried].find(
      (c) => !c.raw.equals(current.raw) && current.checkIssued(c) && current.verify(c.publicKey),
    );
    if (!issuer) throw new TimestampError(`${name(current)} does not chain to a trusted certificate`);
    if (issuer !== leaf && !issuer.ca) throw new TimestampError(`${name(issuer)} is not a certificate authority`);
    cert = issuer;
  }
  throw new TimestampError('the certificate chain is too long');
}

/** The certificates of a PEM bundle (`--tsa-cert`, RUNBOOKS_TSA_CERT_FILE). */
export function certificatesOf(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}
