import type { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { readRegularFile } from './evidence-names';
import { type Seal, SEAL_SUFFIX } from './evidence-seal';
import { sealedDigestOf, stampedFilesOf } from './evidence-stamps';
import { readTimestampResponse, TIMESTAMP_SUFFIX, verifyTimestamp } from './evidence-timestamp';
import { timestampDisagreement } from './evidence-timestamp-rules';

/**
 * The timestamps of one sealed report, as verify reads them: a token beside its seal and beside each attestation the
 * seal covers (runtime/evidence-stamps.ts). A token that is there must hold; one that is missing is not an edit (the
 * authority may have been down, or none configured) but the report is then not timestamped, which the gate can ask for.
 */

/**
 * - `timestamped`: every token is there and verifies against the authority's certificates given;
 * - `unchecked`: every token is there and covers its file, but no authority certificate was given to check them;
 * - `partial`: some are missing (a retry may still add them);
 * - `none`: the report has no token;
 * - `invalid`: a token is there and does not hold (a verification problem too).
 */
export type StampStatus = 'timestamped' | 'unchecked' | 'partial' | 'none' | 'invalid';

export interface ReportStamps {
  report: string;
  status: StampStatus;
  /** The authority's time for the seal, when its token verified. */
  genTime?: string;
  /** Who signed it (the certificate's subject). */
  authority?: string;
  /** Files of the report that should have a token and have none. */
  missing: string[];
}

/**
 * Checks the tokens of the report `file` sealed by `seal`: each must be a token for its file's sealed digest (the
 * seal's own bytes for the seal), and with `trusted`, verify against those certificates at a time within the
 * tolerance of the seal's. Returns the report's status and one line per token that does not hold.
 */
export async function checkStamps(
  dir: string,
  names: ReadonlySet<string>,
  file: string,
  seal: Seal,
  trusted: readonly X509Certificate[] | undefined,
): Promise<{ stamps: ReportStamps; faults: string[] }> {
  const faults: string[] = [];
  const missing: string[] = [];
  let sealFacts: { genTime: string; authority: string } | undefined;
  for (const stamped of stampedFilesOf(file, seal)) {
    const tokenName = `${stamped}${TIMESTAMP_SUFFIX}`;
    if (!names.has(tokenName)) {
      missing.push(stamped);
      continue;
    }
    const digest = await sealedDigestOf(dir, file, stamped, seal);
    const token = await readRegularFile(join(dir, tokenName)).catch(() => undefined);
    if (!token || digest === undefined) {
      faults.push(`${tokenName} cannot be read`);
      continue;
    }
    try {
      if (!trusted) {
        if (readTimestampResponse(token).imprint.digest !== digest)
          faults.push(`${tokenName} is a token for other data`);
        continue;
      }
      const facts = verifyTimestamp(token, { sha256Hex: digest, trusted });
      const disagreement = timestampDisagreement(seal.sealedAt, facts.genTime);
      if (disagreement) faults.push(`${tokenName}: ${disagreement}`);
      else if (stamped.endsWith(SEAL_SUFFIX)) {
        sealFacts = { genTime: facts.genTime.toISOString(), authority: facts.authority };
      }
    } catch (err) {
      faults.push(`${tokenName}: ${(err as Error).message}`);
    }
  }
  const all = stampedFilesOf(file, seal).length;
  const status: StampStatus =
    faults.length > 0
      ? 'invalid'
      : missing.length === all
        ? 'none'
        : missing.length > 0
          ? 'partial'
          : trusted
            ? 'timestamped'
            : 'unchecked';
  return { stamps: { report: file, status, ...(faults.length === 0 ? sealFacts : {}), missing }, faults };
}
