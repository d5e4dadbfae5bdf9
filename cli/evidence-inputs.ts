import type { X509Certificate } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { NotFoundError, UsageError } from '../operator/errors';
import type { Help } from '../operator/help';
import { PublicKeyFileError, readPublicKeys, type TrustedKey } from '../operator/public-keys';
import { DRILL_REPORTS_FOLDER } from '../history/drill-index';
import { PUBLIC_KEY_FILE } from '../runtime/evidence-seal';
import { certificatesOf } from '../runtime/evidence-timestamp';
import type { ReportStamps } from '../runtime/evidence-verify-stamps';

// What the evidence commands that read a reports folder share: where the folder is, and which keys to trust.

/** Neither --public-key nor --trust-folder-keys: the only keys at hand are the ones an attacker could have put there. */
export class UntrustedKeysError extends UsageError {}

/** `--dir`: the output directory, or its drill-reports/ folder itself. */
export async function outputDirOf(arg: string, help: Help): Promise<string> {
  const dir = resolve(arg);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => undefined,
  );
  if (isDir === undefined) throw new NotFoundError(`${dir} does not exist (--dir or RUNBOOKS_OUTPUT_DIR)`);
  if (!isDir) throw new UsageError(`${dir} is not a directory\n${help.usage}`);
  const nested = await stat(join(dir, DRILL_REPORTS_FOLDER)).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return !nested && basename(dir) === DRILL_REPORTS_FOLDER ? dirname(dir) : dir;
}

/** The public key files beside the reports in `dir`, or in each of several folders (drill-reports/, plan-reports/). */
export async function folderKeyFiles(dir: string | readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const folder of typeof dir === 'string' ? [dir] : dir) {
    const names = await readdir(folder).catch(() => []);
    const keys = names.filter((n) => n.startsWith('evidence-public-key') && n.endsWith('.pem'));
    files.push(...keys.map((n) => join(folder, n)));
  }
  return files;
}

/** Why a check without keys obtained out of band is refused, as `evidence gate` and `evidence oscal` say it. */
export const UNTRUSTED_KEYS =
  `not checked: the keys beside the reports can be replaced by whoever can edit a report. Give --public-key <the ` +
  `key history or public key obtained out of band> (runbooks evidence key show names it), or ` +
  `--trust-folder-keys to trust the folder's keys all the same`;

/**
 * The keys to check seals against: the --public-key files, obtained out of band, or with --trust-folder-keys the
 * keys beside the reports in `dir`. Neither is refused with `refusal`: a check against keys whoever can write the
 * reports could replace proves nothing. Refused before anything is read, unless `showFolderKeys` is given: then the
 * folder's keys are read and shown to it first, so that the refusal comes with what it refused. `given` says which.
 */
export async function keysToTrust(
  options: {
    keyFiles: readonly string[];
    trustFolder: boolean;
    /** The reports folder whose keys --trust-folder-keys trusts, or several (the gate's drill and plan folders). */
    dir: string | readonly string[];
    showFolderKeys?: (keys: readonly TrustedKey[]) => void;
  },
  help: Help,
  refusal = UNTRUSTED_KEYS,
): Promise<{ keys: TrustedKey[]; given: boolean }> {
  const { keyFiles, trustFolder, dir, showFolderKeys } = options;
  const given = keyFiles.length > 0;
  if (given || !showFolderKeys) refuseUntrusted(keyFiles, trustFolder, help, refusal);
  const keys = (await Promise.all((given ? keyFiles : await folderKeyFiles(dir)).map(readPublicKeys))).flat();
  if (given) return { keys, given };
  showFolderKeys?.(keys);
  refuseUntrusted(keyFiles, trustFolder, help, refusal);
  if (keys.length === 0) {
    const where = typeof dir === 'string' ? dir : dir.join(' or ');
    throw new PublicKeyFileError(`no ${PUBLIC_KEY_FILE} in ${where}: give --public-key`);
  }
  return { keys, given };
}

/** Refuses both --public-key and --trust-folder-keys, or neither (with `refusal`): checked before anything is read. */
export function refuseUntrusted(
  keyFiles: readonly string[],
  trustFolder: boolean,
  help: Help,
  refusal = UNTRUSTED_KEYS,
): void {
  refuseBoth(keyFiles, trustFolder, help);
  if (keyFiles.length === 0 && !trustFolder) throw new UntrustedKeysError(refusal);
}

/** Refuses both --public-key and --trust-folder-keys: a usage error whatever else is wrong. */
export function refuseBoth(keyFiles: readonly string[], trustFolder: boolean, help: Help): void {
  if (keyFiles.length > 0 && trustFolder) {
    throw new UsageError(`give --public-key or --trust-folder-keys, not both\n${help.usage}`);
  }
}

/**
 * `--tsa-cert`: the time-stamping authority's certificate chain, PEM, obtained out of band as the public key is. A file
 * that is not there is not found; one that holds no certificate is a usage error.
 */
export async function readTsaCertificates(file: string, help: Help): Promise<X509Certificate[]> {
  const path = resolve(file);
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new NotFoundError(`--tsa-cert ${path} does not exist`);
    throw new UsageError(`--tsa-cert ${path} cannot be read (${err.code ?? err.message})\n${help.usage}`);
  });
  let certificates: X509Certificate[] = [];
  try {
    certificates = certificatesOf(text);
  } catch {
    certificates = [];
  }
  if (certificates.length === 0) {
    throw new UsageError(`--tsa-cert ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)\n${help.usage}`);
  }
  return certificates;
}

/** One line per report on its timestamps, as `evidence verify` prints them for a folder and for a pack. */
export function timestampLines(stamps: readonly ReportStamps[]): string[] {
  return stamps.map((s) => {
    const head = `timestamp ${s.report}: `;
    switch (s.status) {
      case 'timestamped':
        return `${head}ok, dated ${s.genTime ?? '?'} by ${s.authority ?? '?'}`;
      case 'unchecked':
        return `${head}tokens present, not checked: give --tsa-cert <the authority's certificate chain>`;
      case 'partial':
        return `${head}partial, no token yet for ${s.missing.join(', ')}`;
      case 'none':
        return `${head}none`;
      case 'invalid':
        return `${head}FAILED (above)`;
    }
  });
}
