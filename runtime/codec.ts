import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { Reader, Writer } from 'protobufjs/minimal';

/**
 * AES-256-GCM payload encryption for history (docs/security.md, "Encrypted history"). Light on purpose: node:crypto and
 * protobufjs only, so the codec server and the CLI load it cheaply.
 */

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface CodecKeys {
  /** The key new payloads are encrypted with. */
  current: string;
  /** Every key that may still be named by a payload in history, by ID; holds `current`. */
  keys: ReadonlyMap<string, Uint8Array>;
}

/** A payload that cannot be decrypted: unknown key, tampered or truncated data. */
export class PayloadDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadDecryptionError';
  }
}

const utf8 = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

export class AesGcmCodec implements PayloadCodec {
  constructor(private readonly keys: CodecKeys) {
    const current = keys.keys.get(keys.current);
    if (!current) throw new Error(`the current key '${keys.current}' is not among the keys`);
    for (const [id, key] of keys.keys) {
      if (key.length !== KEY_BYTES) throw new Error(`key '${id}' is ${key.length} bytes, not ${KEY_BYTES}`);
    }
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const id = this.keys.current;
    const key = this.keys.keys.get(id) as Uint8Array;
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      // The key ID is authenticated too: a payload relabelled with another key's ID fails like a tampered one.
      cipher.setAAD(Buffer.from(id, 'utf8'));
      const body = Buffer.concat([cipher.update(serializePayload(payload)), cipher.final()]);
      return {
        metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(id) },
        data: Buffer.concat([iv, body, cipher.getAuthTag()]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // History written before encryption was turned on stays readable.
      if (utf8(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
      const id = utf8(payload.metadata?.[KEY_ID_METADATA]);
      if (id === undefined) throw new PayloadDecryptionError(`an encrypted payload has no ${KEY_ID_METADATA}`);
      const key = this.keys.keys.get(id);
      if (!key) {
        throw new PayloadDecryptionError(
          `a payload is encrypted with key '${id}', which is not configured (known: ${[...this.keys.keys.keys()].join(', ')}); ` +
            'keep retired keys in RUNBOOKS_CODEC_KEYS_FILE while history still uses them',
        );
      }
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES)
        throw new PayloadDecryptionError(`a payload under key '${id}' is truncated`);
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(id, 'utf8'));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new PayloadDecryptionError(`a payload under key '${id}' fails authentication: it was altered`);
      }
      return deserializePayload(plain);
    });
  }
}

// The plaintext is the payload's own protobuf encoding (`temporal.api.common.v1.Payload`: metadata map = 1,
// data = 2), as in Temporal's encryption samples, so metadata such as the inner encoding is encrypted too.
function serializePayload(payload: Payload): Uint8Array {
  const writer = Writer.create();
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    writer.uint32(10).fork().uint32(10).string(key).uint32(18).bytes(value).ldelim();
  }
  if (payload.data && payload.data.length > 0) writer.uint32(18).bytes(payload.data);
  return writer.finish();
}

function deserializePayload(bytes: Uint8Array): Payload {
  const reader = Reader.create(bytes);
  const metadata: Record<string, Uint8Array> = {};
  let data: Uint8Array = new Uint8Array();
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag === 10) {
      const end = reader.uint32() + reader.pos;
      let key = '';
      let value: Uint8Array = new Uint8Array();
      while (reader.pos < end) {
        const entryTag = reader.uint32();
        if (entryTag === 10) key = reader.string();
        else if (entryTag === 18) value = reader.bytes();
        else reader.skipType(entryTag & 7);
      }
      metadata[key] = value;
    } else if (tag === 18) {
      data = reader.bytes();
    } else {
      reader.skipType(tag & 7);
    }
  }
  return { metadata, data };
}

/**
 * The module of the failure converter that moves failure messages and stack traces into a payload
 * (runtime/failure-converter.ts). The workflow bundle always carries it (a bundle is built before any key is known),
 * and the worker and the clients use it whenever a key is configured, so that the codec encrypts failures too.
 */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * With keys: the codec, and the failure converter that hands failures' messages and stack traces to it. The worker,
 * the CLI and the stack's client all use this one converter, so what one encrypts the others read. Without keys:
 * nothing, so the SDK's defaults apply.
 */
export function codecDataConverter(
  keys: CodecKeys | undefined,
): { payloadCodecs: PayloadCodec[]; failureConverterPath: string } | undefined {
  return keys ? { payloadCodecs: [new AesGcmCodec(keys)], failureConverterPath: FAILURE_CONVERTER_PATH } : undefined;
}
