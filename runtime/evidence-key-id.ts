import { createHash, type KeyObject } from 'node:crypto';

/** Names of evidence keys, and their error: shared by the key (evidence-key.ts) and its history. */

/** A key file that is not what it must be; `path` names it. */
export class EvidenceKeyError extends Error {
  override name = 'EvidenceKeyError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

/** First 16 hex digits of the sha256 of the public key's DER (SPKI): short, and the same wherever it is computed. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

/** `SHA256:` and the hex sha256 of the public key's DER (SPKI), as `runbooks evidence key show` prints it. */
export function fingerprintOf(publicKey: KeyObject): string {
  return `SHA256:${createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')}`;
}
