import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file';
import type { TimestampAuthorityConfig } from './config/evidence';
import { readRegularFile } from './evidence-names';
import { type Seal, SEAL_SUFFIX, SEALED_RENDERINGS, sha256 } from './evidence-seal';
import {
  certificatesOf,
  readTimestampResponse,
  requestTimestamp,
  TIMESTAMP_SUFFIX,
  TimestampAuthorityError,
  TimestampError,
  verifyTimestamp,
} from './evidence-timestamp';

/**
 * The timestamps of a sealed report: a token beside its seal and beside each attestation (`<file>.tsr`). Each token
 * is asked for over the digest recorded when the report was sealed, never over the file as it is at the time of
 * asking, so that a retry days later cannot date a file changed in between.
 */

/** The reports folders whose timestamps a later run may add; a drill's (`drill-reports`) when none is named. */
export const STAMPED_FOLDERS = ['drill-reports', 'plan-reports'] as const;
export type StampedFolder = (typeof STAMPED_FOLDERS)[number];

/** A file of the reports folder to timestamp, with the sha256 it had when sealed. */
export interface StampTarget {
  file: string;
  sha256: string;
}

/** The seal of `baseName` and its attestations, with the digests their tokens must cover. */
export async function stampTargetsOf(dir: string, baseName: string, seal: Seal): Promise<StampTarget[]> {
  const targets: StampTarget[] = [];
  for (const file of stampedFilesOf(baseName, seal)) {
    const digest = await sealedDigestOf(dir, baseName, file, seal);
    if (digest !== undefined) targets.push({ file, sha256: digest });
  }
  return targets;
}

/** The token files a report may have: beside its seal and beside each attestation (`.dsse.json`) its seal covers. */
export function stampedFilesOf(file: string, seal: Seal): string[] {
  const attestations = Object.keys(seal.files)
    .filter((extension) => extension.endsWith('.dsse.json'))
    .sort()
    .map((extension) => `${file}.${extension}`);
  return [`${file}${SEAL_SUFFIX}`, ...attestations];
}

/** Every file a sealed report `base` may have: its renderings, its seal, and the tokens of the seal and attestations. */
export function reportFileNames(base: string): string[] {
  const files = [...SEALED_RENDERINGS.map((e) => `${base}.${e}`), `${base}${SEAL_SUFFIX}`];
  const tokens = files.map((f) => `${f}${TIMESTAMP_SUFFIX}`).filter((t) => stampedFileOf(t) !== undefined);
  return [...files, ...tokens];
}

/** Whether `name` is a token of a file a seal covers or of a seal, and of which. */
export function stampedFileOf(name: string): string | undefined {
  if (!name.endsWith(TIMESTAMP_SUFFIX)) return undefined;
  const stamped = name.slice(0, -TIMESTAMP_SUFFIX.length);
  return stamped.endsWith(SEAL_SUFFIX) || stamped.endsWith('.dsse.json') ? stamped : undefined;
}

/** The digest a token must cover: the seal file's own bytes, or the digest the seal holds for the attestation. */
export async function sealedDigestOf(
  dir: string,
  file: string,
  stamped: string,
  seal: Seal,
): Promise<string | undefined> {
  if (stamped.endsWith(SEAL_SUFFIX)) {
    const bytes = await readRegularFile(join(dir, stamped)).catch(() => undefined);
    return bytes ? sha256(bytes) : undefined;
  }
  return seal.files[stamped.slice(file.length + 1)];
}

export interface StampOutcome {
  /** Targets that now have their token (asked for now or earlier). */
  stamped: string[];
  /** Targets still without one: the authority could not be asked, or its answer was not a valid token. */
  pending: StampTarget[];
  /** Why the first pending target has no token. */
  error?: string;
}

/**
 * Writes a token for each target that has none yet, in order, and stops at the first failure (an authority that is
 * down would only make each later request wait out its timeout too): the rest stay pending, for a retry. With the
 * authority's certificates configured, a token that does not verify against them is never kept.
 */
export async function stampFiles(
  dir: string,
  targets: readonly StampTarget[],
  authority: TimestampAuthorityConfig,
  timeoutMs?: number,
): Promise<StampOutcome> {
  const trusted = authority.certificatesPem ? certificatesOf(authority.certificatesPem) : undefined;
  const stamped: string[] = [];
  for (const [index, target] of targets.entries()) {
    const tokenPath = join(dir, `${target.file}${TIMESTAMP_SUFFIX}`);
    if (await holdsTokenFor(tokenPath, target.sha256)) {
      stamped.push(target.file);
      continue;
    }
    try {
      const response = await requestTimestamp(authority.url, target.sha256, timeoutMs);
      if (trusted) verifyTimestamp(response, { sha256Hex: target.sha256, trusted });
      await writeFileAtomic(tokenPath, response, { mode: 0o644 });
      stamped.push(target.file);
    } catch (err) {
      if (!(err instanceof TimestampAuthorityError) && !(err instanceof TimestampError)) {
        throw err;
      }
      return { stamped, pending: targets.slice(index), error: `${target.file}: ${err.message}` };
    }
  }
  return { stamped, pending: [] };
}

/** Whether `path` already holds a token for this digest (a retry after the token was written). */
async function holdsTokenFor(path: string, digest: string): Promise<boolean> {
  const data = await readFile(path).catch(() => undefined);
  if (!data) return false;
  try {
    return readTimestampResponse(data).imprint.digest === digest;
  } catch {
    return false;
  }
}

/** The timestamps a report still lacks when it was written: the authority could not be asked then. */
export interface PendingTimestamps {
  targets: StampTarget[];
  /** Why the first had no token. */
  error: string;
  /** The seal's time: a token is worth asking for only within the tolerance after it (docs/security.md). */
  sealedAt: string;
  /** The report's folder under the output directory, when not `drill-reports` (a recovery plan's: `plan-reports`). */
  folder?: StampedFolder;
}

/** What became of a report's timestamps when it was written: the files that got a token, and what is still missing. */
export interface ReportTimestamps {
  added: string[];
  pending?: PendingTimestamps;
}

/** How long a report's activity waits for the authority before leaving the tokens to a retry of their own. */
export const STAMP_TIMEOUT_MS = 10_000;

/**
 * Asks the authority for the tokens of a report just sealed in `dir` (its seal's and its attestations'), once and
 * briefly: an authority that does not answer never holds the run up, and what is still missing is returned, for a
 * retry of its own (runbooks/dr-drill/timestamps.ts). `folder` names the reports folder for that retry.
 */
export async function stampSealedReport(
  authority: TimestampAuthorityConfig,
  dir: string,
  seal: Seal,
  folder: StampedFolder = 'drill-reports',
): Promise<ReportTimestamps> {
  const targets = await stampTargetsOf(dir, seal.report, seal);
  const outcome = await stampFiles(dir, targets, authority, STAMP_TIMEOUT_MS);
  if (outcome.pending.length === 0) return { added: outcome.stamped };
  return {
    added: outcome.stamped,
    pending: {
      targets: outcome.pending,
      error: outcome.error ?? 'no token',
      sealedAt: seal.sealedAt,
      ...(folder === 'drill-reports' ? {} : { folder }),
    },
  };
}
