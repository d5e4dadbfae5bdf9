import { randomBytes } from 'node:crypto';
import { ApplicationFailure, DefaultFailureConverter, defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  AesGcmCodec,
  codecDataConverter,
  ENCRYPTED_ENCODING,
  FAILURE_CONVERTER_PATH,
  KEY_ID_METADATA,
  PayloadDecryptionError,
  type CodecKeys,
} from './codec';
import { ConfigError, loadCodecKeys, loadConfig } from './config';
import { failureConverter } from './failure-converter';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const keys = (current: string, entries: [string, Buffer][]): CodecKeys => ({ current, keys: new Map(entries) });

const VALUE = { comment: 'restore the orders bucket', rows: 42 };
const plain = (): Payload => defaultPayloadConverter.toPayload(VALUE);
const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

describe('AesGcmCodec', () => {
  const codec = new AesGcmCodec(keys('k1', [['k1', k1]]));

  test('round trip: the decoded payload is the original, metadata included', async () => {
    const original = plain();
    const [encoded] = await codec.encode([original]);
    const [decoded] = await codec.decode([encoded as Payload]);
    expect(text(decoded?.metadata?.encoding)).toBe('json/plain');
    expect(defaultPayloadConverter.fromPayload(decoded as Payload)).toEqual(VALUE);
  });

  test('the metadata carries the encoding and the key ID; the data is no readable JSON', async () => {
    const [encoded] = await codec.encode([plain()]);
    expect(text(encoded?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(encoded?.metadata?.[KEY_ID_METADATA])).toBe('k1');
    expect(Object.keys(encoded?.metadata ?? {}).sort()).toEqual(['encoding', KEY_ID_METADATA]);
    expect(text(encoded?.data)).not.toContain('orders');
    expect(() => JSON.parse(text(encoded?.data)) as unknown).toThrow();
  });

  test('each encoding uses a fresh IV', async () => {
    const [a, b] = await codec.encode([plain(), plain()]);
    expect(Buffer.from(a?.data ?? []).equals(Buffer.from(b?.data ?? []))).toBe(false);
  });

  test('payloads that are not encrypted pass through decode (history from before encryption)', async () => {
    const original = plain();
    expect(await codec.decode([original])).toEqual([original]);
  });

  test('key rotation: new payloads use the current key, and the old key still decrypts old ones', async () => {
    const [old] = await codec.encode([plain()]);
    const rotated = new AesGcmCodec(
      keys('k2', [
        ['k1', k1],
        ['k2', k2],
      ]),
    );
    const [fresh] = await rotated.encode([plain()]);
    expect(text(fresh?.metadata?.[KEY_ID_METADATA])).toBe('k2');
    const decoded = await rotated.decode([old as Payload, fresh as Payload]);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([VALUE, VALUE]);
    // Without k1, the old payload cannot be read.
    await expect(new AesGcmCodec(keys('k2', [['k2', k2]])).decode([old as Payload])).rejects.toThrow(
      /key 'k1', which is not configured/,
    );
  });

  test('an unknown key ID fails clearly', async () => {
    const [encoded] = await new AesGcmCodec(keys('other', [['other', k2]])).encode([plain()]);
    const err = await codec.decode([encoded as Payload]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayloadDecryptionError);
    expect((err as Error).message).toMatch(/key 'other', which is not configured \(known: k1\)/);
  });

  test('tampering is detected: altered data, relabelled key ID, truncated data', async () => {
    const [encoded] = (await codec.encode([plain()])) as [Payload];
    const data = Buffer.from(encoded.data ?? []);
    const flipped = Buffer.from(data);
    flipped[20] = (flipped[20] ?? 0) ^ 1;
    await expect(codec.decode([{ ...encoded, data: flipped }])).rejects.toThrow(/fails authentication/);

    // The same key under another ID: the key ID is authenticated, so the relabelled payload is refused.
    const twoIds = new AesGcmCodec(
      keys('k1', [
        ['k1', k1],
        ['alias', k1],
      ]),
    );
    const relabelled = { ...encoded, metadata: { ...encoded.metadata, [KEY_ID_METADATA]: Buffer.from('alias') } };
    await expect(twoIds.decode([relabelled])).rejects.toThrow(/fails authentication/);

    await expect(codec.decode([{ ...encoded, data: data.subarray(0, 10) }])).rejects.toThrow(/truncated/);
    await expect(codec.decode([{ metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING) } }])).rejects.toThrow(
      PayloadDecryptionError,
    );
  });

  test('empty data and several metadata entries survive', async () => {
    const original: Payload = { metadata: { encoding: Buffer.from('binary/null'), extra: Buffer.from('x') } };
    const [decoded] = await codec.decode(await codec.encode([original]));
    expect(text(decoded?.metadata?.encoding)).toBe('binary/null');
    expect(text(decoded?.metadata?.extra)).toBe('x');
    expect(decoded?.data?.length ?? 0).toBe(0);
  });
});

describe('loadCodecKeys', () => {
  const b64 = (key: Buffer) => key.toString('base64');
  const configError = (load: () => unknown): ConfigError => {
    try {
      load();
    } catch (err) {
      if (err instanceof ConfigError) return err;
      throw err;
    }
    throw new Error('expected a ConfigError');
  };

  test('off by default: nothing configured, no keys, and the worker config says so', () => {
    expect(loadCodecKeys({})).toBeUndefined();
    expect(loadConfig({}).codecKeys).toBeUndefined();
  });

  test('RUNBOOKS_CODEC_KEY gives one key', () => {
    const loaded = loadCodecKeys({ RUNBOOKS_CODEC_KEY: `2026-11:${b64(k1)}` });
    expect(loaded?.current).toBe('2026-11');
    expect(Buffer.from(loaded?.keys.get('2026-11') ?? []).equals(k1)).toBe(true);
  });

  test('RUNBOOKS_CODEC_KEYS_FILE gives every key and the current one', () => {
    const file = JSON.stringify({ current: 'k2', keys: { k1: b64(k1), k2: b64(k2) } });
    const loaded = loadCodecKeys({ RUNBOOKS_CODEC_KEYS_FILE: '/keys.json' }, () => file);
    expect(loaded?.current).toBe('k2');
    expect([...(loaded?.keys.keys() ?? [])]).toEqual(['k1', 'k2']);
  });

  test.each([
    ['RUNBOOKS_CODEC_KEY', { RUNBOOKS_CODEC_KEY: 'no-colon' }, /<keyId>:<base64 key>/],
    ['RUNBOOKS_CODEC_KEY', { RUNBOOKS_CODEC_KEY: `k1:${randomBytes(16).toString('base64')}` }, /32 random bytes/],
    ['RUNBOOKS_CODEC_KEY', { RUNBOOKS_CODEC_KEY: `bad id:${b64(k1)}` }, /key ID/],
    ['RUNBOOKS_CODEC_KEY', { RUNBOOKS_CODEC_KEY: `k1:${b64(k1)}`, RUNBOOKS_CODEC_KEYS_FILE: '/k' }, /not both/],
  ])('a bad %s is a ConfigError naming it, without the key', (variable, env, message) => {
    const err = configError(() => loadCodecKeys(env));
    expect(err.issues.map((i) => i.variable)).toEqual([variable]);
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain(b64(k1));
  });

  test.each([
    ['unreadable', () => Object.assign(new Error('nope'), { code: 'ENOENT' }), /ENOENT/],
    ['not JSON', () => '{', /not valid JSON/],
    ['current unknown', () => JSON.stringify({ current: 'k9', keys: { k1: b64(k1) } }), /current names no key/],
    ['short key', () => JSON.stringify({ current: 'k1', keys: { k1: 'AAAA' } }), /keys\.k1: must be base64/],
    ['stray field', () => JSON.stringify({ current: 'k1', keys: { k1: b64(k1) }, note: 1 }), /note/],
  ])('a key file %s is a ConfigError naming RUNBOOKS_CODEC_KEYS_FILE', (_what, content, message) => {
    const read = () => {
      const out = content();
      if (out instanceof Error) throw out;
      return out;
    };
    const err = configError(() => loadCodecKeys({ RUNBOOKS_CODEC_KEYS_FILE: '/keys.json' }, read));
    expect(err.issues.map((i) => i.variable)).toEqual(['RUNBOOKS_CODEC_KEYS_FILE']);
    expect(err.message).toMatch(message);
  });

  test('loadConfig reports a bad key with the other problems', () => {
    const err = configError(() => loadConfig({ RUNBOOKS_CODEC_KEY: 'x', LOG_LEVEL: 'loud' }));
    expect(err.issues.map((i) => i.variable).sort()).toEqual(['LOG_LEVEL', 'RUNBOOKS_CODEC_KEY']);
  });

  test('RUNBOOKS_REQUIRE_ENCRYPTION=true refuses to start without a key, in one line naming the variable', () => {
    const err = configError(() => loadCodecKeys({ RUNBOOKS_REQUIRE_ENCRYPTION: 'true' }));
    expect(err.issues).toEqual([
      {
        variable: 'RUNBOOKS_REQUIRE_ENCRYPTION',
        message: 'is true, but no codec key is configured: set RUNBOOKS_CODEC_KEY or RUNBOOKS_CODEC_KEYS_FILE',
      },
    ]);
    // The worker's configuration stops on it (the CLI's: test/runtime/key-file-permissions.test.ts).
    expect(configError(() => loadConfig({ RUNBOOKS_REQUIRE_ENCRYPTION: 'true' })).issues[0]?.variable).toBe(
      'RUNBOOKS_REQUIRE_ENCRYPTION',
    );
    // With a key, or when false, it is satisfied.
    const key = `k1:${b64(k1)}`;
    expect(loadCodecKeys({ RUNBOOKS_REQUIRE_ENCRYPTION: 'true', RUNBOOKS_CODEC_KEY: key })?.current).toBe('k1');
    expect(loadCodecKeys({ RUNBOOKS_REQUIRE_ENCRYPTION: 'false' })).toBeUndefined();
    expect(configError(() => loadCodecKeys({ RUNBOOKS_REQUIRE_ENCRYPTION: 'yes' })).issues[0]?.variable).toBe(
      'RUNBOOKS_REQUIRE_ENCRYPTION',
    );
  });
});

describe('failures', () => {
  const codec = new AesGcmCodec(keys('k1', [['k1', k1]]));
  const secretMessage = 'POST /v1/projects/p-123/snapshots/s-456/databases/query failed with 404';

  test('with keys, the data converter carries the encoding failure converter', () => {
    expect(codecDataConverter(keys('k1', [['k1', k1]]))).toEqual({
      payloadCodecs: [expect.any(AesGcmCodec) as unknown],
      failureConverterPath: FAILURE_CONVERTER_PATH,
    });
    expect(codecDataConverter(undefined)).toBeUndefined();
  });

  test('message and stack leave the failure for a payload the codec encrypts, and come back whole', async () => {
    const failure = failureConverter.errorToFailure(
      ApplicationFailure.nonRetryable(secretMessage, 'NotFound'),
      defaultPayloadConverter,
    );
    expect(failure.message).toBe('Encoded failure');
    expect(failure.stackTrace).toBe('');
    const [encrypted] = await codec.encode([failure.encodedAttributes as Payload]);
    expect(text(encrypted?.data)).not.toContain('p-123');
    const [decrypted] = await codec.decode([encrypted as Payload]);
    const error = failureConverter.failureToError(
      { ...failure, encodedAttributes: decrypted },
      defaultPayloadConverter,
    );
    expect(error.message).toBe(secretMessage);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect((error as ApplicationFailure).type).toBe('NotFound');
  });

  test('failures stored in clear before (older histories) still read the same', () => {
    const old = new DefaultFailureConverter().errorToFailure(
      ApplicationFailure.nonRetryable(secretMessage, 'NotFound'),
      defaultPayloadConverter,
    );
    expect(old.message).toBe(secretMessage);
    expect(failureConverter.failureToError(old, defaultPayloadConverter).message).toBe(secretMessage);
  });
});
