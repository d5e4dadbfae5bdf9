import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_EVIDENCE_KEY_FILE, EvidenceKeyError, parseEvidenceKey } from '../evidence-key';
import { certificatesOf } from '../evidence-timestamp';
import { mdCode, ConfigError, type Env, parseEnv, type SettingDoc, text } from './env';
import { refuseSharedKeyFile } from './key-files';

/** The key that seals drill reports (runtime/evidence-key.ts). */

/**
 * RUNBOOKS_EVIDENCE_KEY_FILE, checked now: a bad key must stop the worker, not the first drill's report. A missing
 * one is fine: the worker creates it at start (runtime/evidence-key.ts), once for every replica sharing the volume.
 */
export function loadEvidenceKeyFile(env: Env = process.env, read = (path: string) => readFileSync(path, 'utf8')) {
  const path = parseEnv(z.object({ RUNBOOKS_EVIDENCE_KEY_FILE: text.optional() }), env).RUNBOOKS_EVIDENCE_KEY_FILE;
  if (path === undefined) return undefined;
  try {
    parseEvidenceKey(read(path), path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return path;
    const message =
      err instanceof EvidenceKeyError
        ? err.message
        : `${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    throw new ConfigError([{ variable: 'RUNBOOKS_EVIDENCE_KEY_FILE', message }]);
  }
  refuseSharedKeyFile(path, 'RUNBOOKS_EVIDENCE_KEY_FILE', env);
  return path;
}

/** The RFC 3161 time-stamping authority that dates every seal and attestation (runtime/evidence-timestamp.ts). */
export interface TimestampAuthorityConfig {
  url: string;
  /** Its certificates, PEM (RUNBOOKS_TSA_CERT_FILE): each token is checked against them before it is kept. */
  certificatesPem?: string;
}

/** RUNBOOKS_TSA_URL and RUNBOOKS_TSA_CERT_FILE, checked now; undefined: no authority, seals carry no token. */
export function loadTimestampAuthority(
  env: Env = process.env,
  read = (path: string) => readFileSync(path, 'utf8'),
): TimestampAuthorityConfig | undefined {
  const parsed = parseEnv(
    z.object({
      RUNBOOKS_TSA_URL: z
        .string()
        .url()
        .refine((u) => /^https?:/.test(u), 'must be an http or https URL')
        .optional(),
      RUNBOOKS_TSA_CERT_FILE: text.optional(),
    }),
    env,
  );
  if (parsed.RUNBOOKS_TSA_URL === undefined) {
    if (parsed.RUNBOOKS_TSA_CERT_FILE !== undefined) {
      throw new ConfigError([{ variable: 'RUNBOOKS_TSA_CERT_FILE', message: 'is set, but RUNBOOKS_TSA_URL is not' }]);
    }
    return undefined;
  }
  const file = parsed.RUNBOOKS_TSA_CERT_FILE;
  if (file === undefined) return { url: parsed.RUNBOOKS_TSA_URL };
  let pem: string;
  try {
    pem = read(file);
  } catch (err) {
    const message = `${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    throw new ConfigError([{ variable: 'RUNBOOKS_TSA_CERT_FILE', message }]);
  }
  let count = 0;
  try {
    count = certificatesOf(pem).length;
  } catch {
    count = 0;
  }
  if (count === 0) {
    throw new ConfigError([{ variable: 'RUNBOOKS_TSA_CERT_FILE', message: `${file}: holds no PEM certificate` }]);
  }
  return { url: parsed.RUNBOOKS_TSA_URL, certificatesPem: pem };
}

/** docs/configuration.md, "Encryption and keys". */
export const EVIDENCE_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_EVIDENCE_KEY_FILE',
    default: mdCode(`$RUNBOOKS_DATA_DIR/${DEFAULT_EVIDENCE_KEY_FILE}`),
    meaning:
      'The PKCS#8 PEM Ed25519 key that seals drill reports, created by the first worker when missing; put it on a ' +
      'volume every replica mounts',
  },
  {
    name: 'RUNBOOKS_TSA_URL',
    default: 'unset: no timestamps',
    meaning:
      'An RFC 3161 time-stamping authority (POST `application/timestamp-query`): every seal and attestation gets a ' +
      "token `<file>.tsr`; one that does not answer holds no run up, and a drill's retry adds them afterwards",
  },
  {
    name: 'RUNBOOKS_TSA_CERT_FILE',
    default: 'none',
    meaning: "The authority's certificate chain (PEM): each token is verified against it before it is kept",
  },
];
