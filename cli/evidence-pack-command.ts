import type { KeyObject, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { dataDirOf } from '../runtime/config';
import { fingerprintOf, keyIdOf } from '../runtime/evidence-key';
import { SpecialFileError } from '../runtime/evidence-names';
import { buildPack } from '../history/pack';
import { PackPeriodError, parsePeriod, type PackPeriod } from '../history/pack-period';
import { packKeys, readPack, verifyPack, type PackProblem } from '../history/pack-verify';
import type { TarEntry } from '../history/tar';
import { parseCommandLine, positionals } from '../operator/args';
import { CliError, EXIT_CODES, NotFoundError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { timestampLines } from './evidence-inputs';

const PACK_HELP = helpFor('evidence pack');

/** A pack that does not hold: the message names the first file at fault. */
export class PackCheckFailedError extends CliError {
  constructor(readonly problem: PackProblem) {
    super(`evidence pack check failed: ${problem.kind} ${problem.file}: ${problem.detail}`, EXIT_CODES.failed);
  }
}

/** The pack was written, and a report in it does not verify: written all the same, as evidence of that. */
export class PackedWithProblemsError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.failed);
  }
}

/** The reports folder holds a symlink, device or other special file: no pack is written. */
export class PackSourceRefusedError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.failed);
  }
}

/**
 * `evidence pack --from <date> --to <date> [--out <file>] [--dir <output dir>] [--public-key <file>...]
 * [--by-control]`: the drill reports and the recovery plan reports of the period. Bad dates are refused before
 * anything is read or written.
 */
export async function evidencePackCommand(
  argv: string[],
  readKeys: (files: string[]) => Promise<KeyObject[]>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const { values, positionals: given } = parseCommandLine(argv, PACK_HELP);
  positionals(given, [], PACK_HELP);
  const period = periodOf(values.from, values.to);
  const outputDir = resolve(values.dir ?? (env.RUNBOOKS_OUTPUT_DIR?.trim() || join(dataDirOf(env), 'output')));
  const isDir = await stat(outputDir).then(
    (s) => s.isDirectory(),
    () => undefined,
  );
  if (isDir === undefined) throw new NotFoundError(`${outputDir} does not exist (--dir or RUNBOOKS_OUTPUT_DIR)`);
  if (!isDir) throw new UsageError(`${outputDir} is not a directory\n${PACK_HELP.usage}`);
  const keyFiles = values['public-key'] ?? [];
  const publicKeys = keyFiles.length > 0 ? await readKeys(keyFiles) : undefined;

  const byControl = values['by-control'];
  const { tarGz, manifest, verification } = await buildPack({
    outputDir,
    period,
    publicKeys,
    ...(byControl ? { byControl } : {}),
  }).catch((err: unknown) => {
    if (err instanceof SpecialFileError) throw new PackSourceRefusedError(`nothing packed: ${err.message}`);
    throw err;
  });
  const out = resolve(values.out ?? `evidence-pack-${safe(period.from)}-to-${safe(period.to)}.tar.gz`);
  await mkdir(dirname(out), { recursive: true });
  // Written whole under another name first: a reader never sees half a pack.
  const partial = `${out}.${process.pid}.partial`;
  await writeFile(partial, tarGz, { mode: 0o644 });
  await rename(partial, out);

  console.log(
    `wrote ${out}: ${reportCount(manifest.drills.length, manifest.plans?.length)} from ${period.from} to ${period.to}`,
  );
  console.log(
    `seals checked against ${manifest.keySource === 'given' ? 'the keys given' : 'the keys beside the reports'}: ${manifest.keyIds.join(', ') || 'none'}`,
  );
  if (manifest.byControl) {
    console.log(
      `by control: ${manifest.byControl.controls.length} controls in controls/, as of ${manifest.byControl.asOf}`,
    );
  }
  for (const s of manifest.skipped) console.log(`  not packed: ${s.file}: ${s.reason}`);
  const bad = [...verification.drills, ...verification.plans].filter((d) => d.status !== 'verified');
  for (const d of bad) {
    console.log(`  ${d.status}: ${d.file}: ${d.problems.map((p) => `${p.kind} ${p.report}: ${p.detail}`).join('; ')}`);
  }
  if (bad.length > 0) {
    throw new PackedWithProblemsError(
      `the pack was written, and ${bad.length} of its reports do not verify (see verification.json in the pack)`,
    );
  }
}

function periodOf(from: string | undefined, to: string | undefined): PackPeriod {
  try {
    return parsePeriod(from, to);
  } catch (err) {
    if (err instanceof PackPeriodError) throw new UsageError(`${err.message}\n${PACK_HELP.usage}`);
    throw err;
  }
}

const safe = (text: string) => text.replace(/[^A-Za-z0-9-]/g, '_');

/** Reads a pack file; a file that is no pack is refused as a failed check. */
export async function readPackFile(path: string): Promise<TarEntry[]> {
  const entries = readPack(await readFile(path));
  if (!Array.isArray(entries)) throw new PackCheckFailedError(entries);
  return entries;
}

/** The keys inside a pack, one line each, for `evidence verify` to show before it decides whether to trust them. */
export function packKeyLines(entries: readonly TarEntry[]): { keys: KeyObject[]; lines: string[] } {
  const keys = packKeys(entries);
  return { keys, lines: keys.map((k) => `${keyIdOf(k)} ${fingerprintOf(k)} (in the pack)`) };
}

/** Checks a pack and prints what it holds; throws on the first problem. */
export async function checkPack(
  path: string,
  entries: readonly TarEntry[],
  keys: KeyObject[],
  timestampCertificates?: readonly X509Certificate[],
): Promise<void> {
  const result = await verifyPack(entries, keys, timestampCertificates);
  for (const p of result.problems) console.log(`  ${p.kind}: ${p.file}: ${p.detail}`);
  const first = result.problems[0];
  if (first) throw new PackCheckFailedError(first);
  const m = result.manifest;
  console.log(
    `pack ${path}: ok, ${m?.files.length ?? 0} files match manifest.json, ${reportCount(m?.drills.length ?? 0, m?.plans?.length)} from ${m?.period.from ?? '?'} to ${m?.period.to ?? '?'}`,
  );
  if (m?.byControl)
    console.log(`by control: ${m.byControl.controls.length} controls, each file listed and its links held`);
  for (const chain of result.chains) console.log(`chain ${chain.chain}: ok, ${chain.reports.join(', ')}`);
  for (const line of timestampLines(result.timestamps)) console.log(line);
}

/** `3 drill reports`, and `and 2 recovery plan reports` when the pack holds some. */
function reportCount(drills: number, plans = 0): string {
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const planText = plans > 0 ? ` and ${count(plans, 'recovery plan report')}` : '';
  return `${count(drills, 'drill report')}${planText}`;
}
