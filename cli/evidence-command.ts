import type { KeyObject, X509Certificate } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { verifyEvidence, type Problem } from '../runtime/evidence-verify';
import { otherSubcommand, parseCommandLine, positionals } from '../operator/args';
import { CliError, EXIT_CODES, NotFoundError, UsageError } from '../operator/errors';
import { evidenceGateCommand } from './evidence-gate-command';
import { keysToTrust, readTsaCertificates, refuseBoth, refuseUntrusted, timestampLines } from './evidence-inputs';
import { evidenceKeyCommand } from './evidence-key-command';
import { evidenceOscalCommand } from './evidence-oscal-command';
import { evidenceScoreCommand } from './evidence-score-command';
import { checkPack, evidencePackCommand, packKeyLines, readPackFile } from './evidence-pack-command';
import { helpFor } from '../operator/help';
import { PublicKeyFileError, readPublicKeys, type TrustedKey } from '../operator/public-keys';

const VERIFY_HELP = helpFor('evidence verify');

/** verify shows the keys it would trust, then refuses them, saying "not verified": for a folder and for a pack. */
const UNTRUSTED_FOLDER_KEYS =
  `not verified: these keys lie beside the reports, and whoever can edit a report can replace them. Give ` +
  `--public-key <the key history or public key obtained out of band> (runbooks evidence key show names it), ` +
  `or --trust-folder-keys to trust the folder's keys all the same`;
const UNTRUSTED_PACK_KEYS =
  `not verified: whoever can edit the pack can replace the keys inside it. Give --public-key <the key history ` +
  `obtained out of band>, or --trust-folder-keys to trust the pack's keys all the same`;

/** `header`, then each key's line. */
function showKeys(header: string, lines: readonly string[]): void {
  console.log(header);
  for (const line of lines) console.log(`  ${line}`);
}
const linesOf = (keys: readonly TrustedKey[]) => keys.map((k) => k.line);

/** The folder to check does not exist or holds no reports. */
export class EvidenceDirError extends NotFoundError {}

/** A problem's kind in words: a report sealed with another key is unverified, not edited. */
const problemKind = (problem: Problem) => (problem.kind === 'otherKey' ? 'unverified' : problem.kind);

/** Verification ran and found a problem; the message names the first report at fault. */
export class EvidenceCheckFailedError extends CliError {
  constructor(readonly problem: Problem) {
    super(
      `evidence check failed: ${problemKind(problem)} report ${problem.report}: ${problem.detail}`,
      EXIT_CODES.failed,
    );
  }
}

export async function evidenceCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'key') return evidenceKeyCommand(rest);
  if (sub === 'gate') return evidenceGateCommand(rest);
  if (sub === 'oscal') return evidenceOscalCommand(rest);
  if (sub === 'score') return evidenceScoreCommand(rest);
  if (sub === 'pack') {
    return evidencePackCommand(rest, async (files) =>
      (await Promise.all(files.map(readPublicKeys))).flat().map((k) => k.key),
    );
  }
  if (sub !== 'verify') return otherSubcommand(sub, 'evidence');
  const { values, positionals: given } = parseCommandLine(rest, VERIFY_HELP);
  const [dirArg = ''] = positionals(given, ['dir'], VERIFY_HELP);
  const keyFiles = values['public-key'] ?? [];
  const trustFolder = values['trust-folder-keys'] === true;
  refuseBoth(keyFiles, trustFolder, VERIFY_HELP);
  const tsaFile = values['tsa-cert'];
  const tsa = tsaFile === undefined ? undefined : await readTsaCertificates(tsaFile, VERIFY_HELP);
  const packFile = await isPackFile(dirArg);
  if (packFile) return verifyPackFile(packFile, keyFiles, trustFolder, tsa);
  const dir = await reportsDir(dirArg);
  const showFolderKeys = (found: readonly TrustedKey[]) =>
    showKeys(`public keys found beside the reports in ${dir}:`, linesOf(found));
  const { keys, given: keysGiven } = await keysToTrust(
    { keyFiles, trustFolder, dir, showFolderKeys },
    VERIFY_HELP,
    UNTRUSTED_FOLDER_KEYS,
  );
  if (keysGiven) showKeys('public keys given:', linesOf(keys));
  else console.log('trusting them (--trust-folder-keys): this shows the reports match those keys, not who signed them');

  if (tsa) showKeys("time-stamping authority's certificates given:", tsa.map(certificateLine));
  const { chains, folder, first, timestamps } = await verifyEvidence(
    dir,
    keys.map((k) => k.key),
    tsa ? { timestamps: tsa } : {},
  );
  if (chains.length === 0 && folder.length === 0) throw new EvidenceDirError(`${dir} holds no drill reports`);
  for (const chain of chains) {
    const count = `${chain.reports.length} report${chain.reports.length === 1 ? '' : 's'}`;
    if (chain.problems.length === 0) {
      console.log(`chain ${chain.chain}: ok, ${count}: ${chain.reports.join(', ')}`);
      continue;
    }
    console.log(`chain ${chain.chain}: FAILED, ${count}`);
    for (const p of chain.problems) console.log(`  ${problemKind(p)}: ${p.report}: ${p.detail}`);
  }
  // Files of no chain that nothing vouches for: each fails the check.
  if (folder.length > 0) console.log(`folder ${dir}: FAILED, ${folder.length} file(s) not accounted for`);
  for (const p of folder) console.log(`  ${problemKind(p)}: ${p.report}: ${p.detail}`);
  for (const line of timestampLines(timestamps)) console.log(line);
  if (first) throw new EvidenceCheckFailedError(first);
}

/** The path when it names a file (a pack made by `evidence pack`), else undefined. */
async function isPackFile(arg: string): Promise<string | undefined> {
  const path = resolve(arg);
  const file = await stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
  return file ? path : undefined;
}

/** `evidence verify <pack.tar.gz>`: the same trust rule as for a folder, with the keys inside the pack. */
async function verifyPackFile(
  path: string,
  keyFiles: string[],
  trustPack: boolean,
  tsa: X509Certificate[] | undefined,
): Promise<void> {
  const entries = await readPackFile(path);
  let keys: KeyObject[];
  if (keyFiles.length > 0) {
    const trusted = (await Promise.all(keyFiles.map(readPublicKeys))).flat();
    showKeys('public keys given:', linesOf(trusted));
    keys = trusted.map((k) => k.key);
  } else {
    const inPack = packKeyLines(entries);
    showKeys(`public keys inside the pack ${path}:`, inPack.lines);
    refuseUntrusted(keyFiles, trustPack, VERIFY_HELP, UNTRUSTED_PACK_KEYS);
    if (inPack.keys.length === 0) throw new PublicKeyFileError(`no public key in ${path}: give --public-key`);
    console.log('trusting them (--trust-folder-keys): this shows the pack matches those keys, not who signed it');
    keys = inPack.keys;
  }
  if (tsa) showKeys("time-stamping authority's certificates given:", tsa.map(certificateLine));
  await checkPack(path, entries, keys, tsa);
}

/** A certificate as verify names it: its subject, and its fingerprint to compare with the authority's. */
const certificateLine = (c: X509Certificate) => `${c.subject.replace(/\n/g, ', ')} (SHA256 ${c.fingerprint256})`;

/** `<dir>`, or its `drill-reports/` when given the output directory. */
async function reportsDir(arg: string): Promise<string> {
  const dir = resolve(arg);
  const isDir = (path: string) =>
    stat(path).then(
      (s) => s.isDirectory(),
      () => undefined,
    );
  const given = await isDir(dir);
  // A folder that is not there is not found; a file given for the folder is a wrong argument.
  if (given === undefined) throw new EvidenceDirError(`${dir} is not a directory\n${VERIFY_HELP.usage}`);
  if (!given) throw new UsageError(`${dir} is not a directory\n${VERIFY_HELP.usage}`);
  const nested = join(dir, 'drill-reports');
  return (await isDir(nested)) ? nested : dir;
}
