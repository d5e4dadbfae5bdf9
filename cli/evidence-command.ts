import type { KeyObject } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { EvidenceKeyError, keyIdOf, parsePublicKeys } from '../runtime/evidence-key';
import { PUBLIC_KEY_FILE } from '../runtime/evidence-seal';
import { verifyEvidence, type Problem } from '../runtime/evidence-verify';
import { parseCommandLine, positionals } from './args';
import { CliError, UsageError } from './errors';

const USAGE = [
  'usage: runbooks evidence verify <dir> [--public-key <pem>]...',
  '<dir> holds the drill reports (or is the output directory above drill-reports/). Check against a public key',
  `obtained out of band; without --public-key, the ${PUBLIC_KEY_FILE} files next to the reports are used.`,
].join('\n');

/** The folder to check does not exist or holds no reports. */
export class EvidenceDirError extends UsageError {}

/** A --public-key file that cannot be read or holds no Ed25519 public key. */
export class PublicKeyFileError extends UsageError {}

/** Verification ran and found a problem; the message names the first report at fault. */
export class EvidenceCheckFailedError extends CliError {
  constructor(readonly problem: Problem) {
    super(`evidence check failed: ${problem.kind} report ${problem.report}: ${problem.detail}`, 1);
  }
}

export async function evidenceCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') return console.log(USAGE);
  if (sub !== 'verify') throw new UsageError(`unknown evidence command '${sub}'\n${USAGE}`);
  const { values, positionals: given } = parseCommandLine(
    rest,
    { 'public-key': { type: 'string', multiple: true }, help: { type: 'boolean', default: false } },
    USAGE,
  );
  if (values.help) return console.log(USAGE);
  const [dirArg = ''] = positionals(given, ['dir'], USAGE);
  const dir = await reportsDir(dirArg);
  const keyFiles = values['public-key'] ?? [];
  const published = keyFiles.length === 0;
  const files = published
    ? (await readdir(dir))
        .filter((n) => n.startsWith('evidence-public-key') && n.endsWith('.pem'))
        .map((n) => join(dir, n))
    : keyFiles;
  if (files.length === 0) throw new PublicKeyFileError(`no ${PUBLIC_KEY_FILE} in ${dir}: give --public-key\n${USAGE}`);
  const keys = (await Promise.all(files.map(readPublicKeys))).flat();
  if (published) {
    console.log(`checking against the public key(s) found in ${dir}; an auditor should pass --public-key instead`);
  }
  console.log(`public keys: ${keys.map(keyIdOf).join(', ')}`);

  const { chains, first } = await verifyEvidence(dir, keys);
  if (chains.length === 0) throw new EvidenceDirError(`${dir} holds no drill reports`);
  for (const chain of chains) {
    const count = `${chain.reports.length} report${chain.reports.length === 1 ? '' : 's'}`;
    if (chain.problems.length === 0) {
      console.log(`chain ${chain.chain}: ok, ${count}: ${chain.reports.join(', ')}`);
      continue;
    }
    console.log(`chain ${chain.chain}: FAILED, ${count}`);
    for (const p of chain.problems) console.log(`  ${p.kind}: ${p.report}: ${p.detail}`);
  }
  if (first) throw new EvidenceCheckFailedError(first);
}

/** `<dir>`, or its `drill-reports/` when given the output directory. */
async function reportsDir(arg: string): Promise<string> {
  const dir = resolve(arg);
  const isDir = (path: string) =>
    stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
  if (!(await isDir(dir))) throw new EvidenceDirError(`${dir} is not a directory\n${USAGE}`);
  const nested = join(dir, 'drill-reports');
  return (await isDir(nested)) ? nested : dir;
}

async function readPublicKeys(path: string): Promise<KeyObject[]> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    throw new PublicKeyFileError(`--public-key ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? ''})`);
  }
  try {
    return parsePublicKeys(pem, path);
  } catch (err) {
    if (err instanceof EvidenceKeyError) throw new PublicKeyFileError(err.message);
    throw err;
  }
}
