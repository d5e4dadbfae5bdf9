import { statSync } from 'node:fs';

/**
 * Files that hold keys (service credentials, codec keys, the evidence signing key) must be readable by their owner
 * only: a key that the group or others can read has, for an auditor, leaked. The worker and the CLI refuse such a
 * file, unless RUNBOOKS_ALLOW_SHARED_KEY_FILES=true says that the folder's own permissions protect it (e.g. a secret
 * volume mounted 0440 for a group of one). Kept free of imports of ours: runtime/config/ uses it.
 */

export const ALLOW_SHARED_KEY_FILES = 'RUNBOOKS_ALLOW_SHARED_KEY_FILES';

/** Whether RUNBOOKS_ALLOW_SHARED_KEY_FILES allows key files that the group or others can read. */
export function sharedKeyFilesAllowed(env: Record<string, string | undefined> = process.env): boolean {
  const value = env[ALLOW_SHARED_KEY_FILES]?.trim().toLowerCase();
  return value === 'true' || value === '1';
}

/** What is wrong with a key file of mode `mode` at `path`; undefined when only its owner can read it. */
export function sharedModeProblem(path: string, mode: number): string | undefined {
  const bits = mode & 0o777;
  if ((bits & 0o077) === 0) return undefined;
  return (
    `${path} can be read by its group or others (mode 0${bits.toString(8)}): run chmod 600 ${path} ` +
    `(or set ${ALLOW_SHARED_KEY_FILES}=true if that is intended)`
  );
}

/** The problem of the key file at `path`, if it exists and is shared and shared files are not allowed. */
export function keyFileProblem(path: string, allowShared: boolean): string | undefined {
  if (allowShared) return undefined;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return undefined; // a missing or unreadable file is reported by whoever reads it
  }
  return sharedModeProblem(path, mode);
}
