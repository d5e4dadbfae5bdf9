import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_EVIDENCE_KEY_FILE, EvidenceKeyError, parseEvidenceKey } from '../evidence-key';
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

/** docs/configuration.md, "Encryption and keys". */
export const EVIDENCE_SETTINGS: readonly SettingDoc[] = [
  {
    name: 'RUNBOOKS_EVIDENCE_KEY_FILE',
    default: mdCode(`$RUNBOOKS_DATA_DIR/${DEFAULT_EVIDENCE_KEY_FILE}`),
    meaning:
      'The PKCS#8 PEM Ed25519 key that seals drill reports, created by the first worker when missing; put it on a ' +
      'volume every replica mounts',
  },
];
