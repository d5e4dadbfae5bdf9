// RFC 3161 tokens read and checked as `openssl ts -verify` does, on a token that a real authority (sigstore's
// timestamp-server v2.0.3) issued for test/fixtures/timestamp/data.txt, with the chain it published. The token is
// checked at its own time, so it stays valid after the certificates expire. The authority itself runs in the full
// tier (test/runtime/timestamp-authority.test.ts).
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { childrenOf, integerHex, oidOf, readDer } from '../../runtime/der';
import {
  certificatesOf,
  readTimestampResponse,
  requestTimestamp,
  TimestampAuthorityError,
  timestampRequest,
  verifyTimestamp,
} from '../../runtime/evidence-timestamp';
import { timestampDisagreement } from '../../runtime/evidence-timestamp-rules';
import { loadTimestampAuthority } from '../../runtime/config/evidence';
import { ConfigError } from '../../runtime/config/env';

const dir = join(__dirname, '..', 'fixtures', 'timestamp');
const data = readFileSync(join(dir, 'data.txt'));
const token = readFileSync(join(dir, 'data.txt.tsr'));
const trusted = certificatesOf(readFileSync(join(dir, 'chain.pem'), 'utf8'));
const digest = createHash('sha256').update(data).digest('hex');

/** The offset of `needle` in the token, which must occur once. */
function offsetOf(needle: Buffer): number {
  const at = token.indexOf(needle);
  expect(at).toBeGreaterThan(0);
  expect(token.indexOf(needle, at + 1)).toBe(-1);
  return at;
}

function flipped(at: number): Buffer {
  const copy = Buffer.from(token);
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return copy;
}

describe('verifyTimestamp', () => {
  it("accepts the authority's token for the file, with the authority's time and name", () => {
    const facts = verifyTimestamp(token, { sha256Hex: digest, trusted });
    expect(facts.genTime.toISOString()).toBe('2026-11-28T16:31:15.000Z');
    expect(facts.authority).toBe('O=local, CN=Test TSA Timestamping');
    expect(facts.serialNumber).toBe('67c3f4a55a26248619cf37eab5949c7d35d1277a');
  });

  it('refuses the token for a file changed by one byte', () => {
    const changed = Buffer.from(data);
    changed[0] = (changed[0] ?? 0) ^ 0x01;
    const other = createHash('sha256').update(changed).digest('hex');
    expect(() => verifyTimestamp(token, { sha256Hex: other, trusted })).toThrow('the token covers other data');
  });

  it("refuses a token whose time was changed by one byte (the TSTInfo no longer matches the authority's digest)", () => {
    const at = offsetOf(Buffer.from('20261128163115Z', 'ascii'));
    expect(() => verifyTimestamp(flipped(at + 11), { sha256Hex: digest, trusted })).toThrow('the TSTInfo was changed');
  });

  it('refuses a token whose signature was changed by one byte, or whose signed attributes were', () => {
    expect(() => verifyTimestamp(flipped(token.length - 5), { sha256Hex: digest, trusted })).toThrow(
      "the authority's signature does not hold",
    );
    // The signing time attribute (UTCTime) is signed: its last digit changed breaks the signature.
    const signingTime = offsetOf(Buffer.concat([Buffer.from([0x17, 13]), Buffer.from('261128163115Z', 'ascii')]));
    expect(() => verifyTimestamp(flipped(signingTime + 13), { sha256Hex: digest, trusted })).toThrow(
      "the authority's signature does not hold",
    );
  });

  it('refuses a token whose issuer is not trusted, or whose chain is cut short', () => {
    // Only the root: the token carries the signer alone, so the intermediate is missing.
    const root = trusted.filter((c) => c.subject.includes('Root'));
    expect(() => verifyTimestamp(token, { sha256Hex: digest, trusted: root })).toThrow(
      'O=local, CN=Test TSA Timestamping does not chain to a trusted certificate',
    );
    expect(() => verifyTimestamp(token, { sha256Hex: digest, trusted: [] })).toThrow('does not chain');
  });

  it('refuses what is not a granted time-stamp response', () => {
    expect(() => verifyTimestamp(token.subarray(0, 200), { sha256Hex: digest, trusted })).toThrow(
      'not a time-stamp response',
    );
    expect(() => verifyTimestamp(Buffer.from('{}'), { sha256Hex: digest, trusted })).toThrow(
      'not a time-stamp response',
    );
    // PKIStatus 2: rejection.
    const rejected = Buffer.from('3003020102', 'hex');
    const wrapped = Buffer.concat([Buffer.from([0x30, rejected.length]), rejected]);
    expect(() => readTimestampResponse(wrapped)).toThrow('the authority refused (PKIStatus 2)');
  });
});

describe('timestampRequest', () => {
  it('asks for a sha256 digest with a nonce and the signer certificate, as RFC 3161 §2.4.1 has it', () => {
    const request = readDer(timestampRequest(digest, Buffer.from('00ff01', 'hex')));
    const [version, imprint, nonce, certReq] = childrenOf(request);
    expect(integerHex(version)).toBe('01');
    const [algorithm, hashed] = childrenOf(imprint);
    expect(oidOf(childrenOf(algorithm)[0])).toBe('2.16.840.1.101.3.4.2.1');
    expect(hashed?.content.toString('hex')).toBe(digest);
    expect(integerHex(nonce)).toBe('ff01');
    expect(certReq?.content).toEqual(Buffer.from([0xff]));
  });

  it('refuses a digest that is not sha256', () => {
    expect(() => timestampRequest('abcd')).toThrow('a sha256 digest is 32 bytes');
  });
});

describe('requestTimestamp', () => {
  it('reports an authority that cannot be reached as TimestampAuthorityError, naming it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/api/v1/timestamp`;
    const attempt = requestTimestamp(url, digest, 2000);
    await expect(attempt).rejects.toBeInstanceOf(TimestampAuthorityError);
    await expect(requestTimestamp(url, digest, 2000)).rejects.toThrow(`${url} could not be reached (ECONNREFUSED)`);
  });
});

describe('timestampDisagreement', () => {
  const sealedAt = '2026-11-28T16:31:00.000Z';
  it('accepts a token from a few minutes before the seal to a day after it', () => {
    expect(timestampDisagreement(sealedAt, new Date('2026-11-28T16:27:00Z'))).toBeUndefined();
    expect(timestampDisagreement(sealedAt, new Date('2026-11-29T16:31:00Z'))).toBeUndefined();
  });
  it('refuses a token long after the seal (a seal dated back) or before it', () => {
    expect(timestampDisagreement(sealedAt, new Date('2026-11-29T16:32:00Z'))).toMatch(/more than 24 hours after/);
    expect(timestampDisagreement(sealedAt, new Date('2026-11-28T16:20:00Z'))).toMatch(/before the seal's/);
  });
});

describe('certificatesOf', () => {
  it('reads every certificate of a PEM bundle', () => {
    expect(trusted.map((c) => c.subject.split('\n').at(-1))).toEqual([
      'CN=Test TSA Timestamping',
      'CN=Test TSA Intermediate',
      'CN=Test TSA Root',
    ]);
    expect(trusted[0]).toBeInstanceOf(X509Certificate);
  });
});

describe('loadTimestampAuthority (RUNBOOKS_TSA_URL, RUNBOOKS_TSA_CERT_FILE)', () => {
  const chainPem = readFileSync(join(dir, 'chain.pem'), 'utf8');
  const read = (path: string) => {
    if (path === '/tsa/chain.pem') return chainPem;
    if (path === '/tsa/empty.pem') return 'not a certificate';
    throw Object.assign(new Error('missing'), { code: 'ENOENT' });
  };
  const load = (env: Record<string, string>) => loadTimestampAuthority(env, read);
  const issues = (env: Record<string, string>) => {
    try {
      load(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.issues.map((i) => `${i.variable}: ${i.message}`);
      throw err;
    }
    return [];
  };

  it('is off without a URL, and takes the chain when one is given', () => {
    expect(load({})).toBeUndefined();
    expect(load({ RUNBOOKS_TSA_URL: 'https://tsa.example/tsr' })).toEqual({ url: 'https://tsa.example/tsr' });
    expect(
      load({ RUNBOOKS_TSA_URL: 'http://127.0.0.1:3000/api/v1/timestamp', RUNBOOKS_TSA_CERT_FILE: '/tsa/chain.pem' }),
    ).toEqual({ url: 'http://127.0.0.1:3000/api/v1/timestamp', certificatesPem: chainPem });
  });

  it('refuses, naming the variable, what would leave the evidence undated without a word', () => {
    expect(issues({ RUNBOOKS_TSA_URL: 'ftp://tsa.example/tsr' })).toEqual([
      'RUNBOOKS_TSA_URL: must be an http or https URL',
    ]);
    expect(issues({ RUNBOOKS_TSA_CERT_FILE: '/tsa/chain.pem' })).toEqual([
      'RUNBOOKS_TSA_CERT_FILE: is set, but RUNBOOKS_TSA_URL is not',
    ]);
    const url = { RUNBOOKS_TSA_URL: 'https://tsa.example/tsr' };
    expect(issues({ ...url, RUNBOOKS_TSA_CERT_FILE: '/tsa/empty.pem' })).toEqual([
      'RUNBOOKS_TSA_CERT_FILE: /tsa/empty.pem: holds no PEM certificate',
    ]);
    expect(issues({ ...url, RUNBOOKS_TSA_CERT_FILE: '/tsa/missing.pem' })).toEqual([
      'RUNBOOKS_TSA_CERT_FILE: /tsa/missing.pem: cannot be read (ENOENT)',
    ]);
  });
});
