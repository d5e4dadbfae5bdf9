import { createHash } from 'node:crypto';
import { readFile, readdir, rename, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { dataDirOf } from '../runtime/config';
import { PUBLIC_KEY_FILE } from '../runtime/evidence-seal';
import { CONTROLS } from '../history/controls';
import { DRILL_REPORTS_FOLDER, DrillReader } from '../history/drill-index';
import { oscalAssessmentResults } from '../history/oscal';
import { parseCommandLine, positionals } from '../operator/args';
import { NotFoundError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { PublicKeyFileError, readPublicKeys } from '../operator/public-keys';
import { parseDuration } from './schedule-policies';

const OSCAL_HELP = helpFor('evidence oscal');
// The package's version (package.json): the document's metadata version.
const TOOL_VERSION = '0.1.0';

/**
 * `evidence oscal [--dir <output dir>] --public-key <file>... | --trust-folder-keys [--out <file>] [--within <d>]`:
 * OSCAL assessment results of the drill reports against the control catalogue, to standard output or --out.
 * `untrusted` is evidence verify's error for a check without keys obtained out of band.
 */
export async function evidenceOscalCommand(
  argv: string[],
  untrusted: new (message: string) => UsageError,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const { values, positionals: given } = parseCommandLine(argv, OSCAL_HELP);
  positionals(given, [], OSCAL_HELP);
  let within: { ms: number; text: string } | undefined;
  if (values.within !== undefined) {
    const ms = parseDuration(values.within);
    if (ms === undefined || ms === 0) {
      throw new UsageError(
        `--within must be a period such as 365d or 90d (days, hours, minutes, seconds), not '${values.within}'\n${OSCAL_HELP.usage}`,
      );
    }
    within = { ms, text: values.within };
  }
  const keyFiles = values['public-key'] ?? [];
  const trustFolder = values['trust-folder-keys'];
  if (keyFiles.length > 0 && trustFolder) {
    throw new UsageError(`give --public-key or --trust-folder-keys, not both\n${OSCAL_HELP.usage}`);
  }
  if (keyFiles.length === 0 && !trustFolder) {
    // Findings from keys that whoever can write the reports could replace would satisfy controls for anyone.
    throw new untrusted(
      `not checked: the keys beside the reports can be replaced by whoever can edit a report. Give --public-key <the ` +
        `key history or public key obtained out of band> (runbooks evidence key show names it), or ` +
        `--trust-folder-keys to trust the folder's keys all the same`,
    );
  }
  const outputDir = await outputDirOf(
    values.dir ?? (env.RUNBOOKS_OUTPUT_DIR?.trim() || join(dataDirOf(env), 'output')),
  );
  const dir = join(outputDir, DRILL_REPORTS_FOLDER);
  const files = keyFiles.length > 0 ? keyFiles : await folderKeyFiles(dir);
  const keys = (await Promise.all(files.map(readPublicKeys))).flat();
  if (keys.length === 0) throw new PublicKeyFileError(`no ${PUBLIC_KEY_FILE} in ${dir}: give --public-key`);
  // Standard output may hold the document: the notes go to standard error.
  console.error(keyFiles.length > 0 ? 'public keys given:' : `trusting the public keys beside the reports in ${dir}:`);
  for (const k of keys) console.error(`  ${k.line}`);

  const index = await new DrillReader({ outputDir, publicKeys: keys.map((k) => k.key) }).read();
  const digests = new Map<string, string>();
  for (const d of index.drills) {
    if (d.seal.status !== 'verified') continue;
    const bytes = await readFile(join(dir, `${d.file}.json`));
    digests.set(d.file, createHash('sha256').update(bytes).digest('hex'));
  }
  const doc = oscalAssessmentResults({
    drills: index.drills,
    digests,
    controls: CONTROLS,
    nowMs: Date.now(),
    ...(within ? { within } : {}),
    version: TOOL_VERSION,
  });
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const findings = doc['assessment-results'].results[0]?.findings ?? [];
  const satisfied = findings.filter((f) => f.target.status.state === 'satisfied').length;
  for (const s of index.skipped) console.error(`  not read: ${s.file}: ${s.reason}`);
  const summary =
    `${digests.size} verified drill report(s) of ${index.drills.length}; ` +
    `${satisfied} of ${findings.length} controls satisfied`;
  if (values.out === undefined) {
    process.stdout.write(text);
    console.error(summary);
    return;
  }
  const out = resolve(values.out);
  // Written under another name and renamed, so nobody reads half a document.
  const partial = `${out}.partial-${process.pid}`;
  await writeFile(partial, text);
  await rename(partial, out);
  console.error(`wrote ${out}: ${summary}`);
}

/** `--dir`: the output directory, or its drill-reports/ folder itself. */
async function outputDirOf(arg: string): Promise<string> {
  const dir = resolve(arg);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => undefined,
  );
  if (isDir === undefined) throw new NotFoundError(`${dir} does not exist (--dir or RUNBOOKS_OUTPUT_DIR)`);
  if (!isDir) throw new UsageError(`${dir} is not a directory\n${OSCAL_HELP.usage}`);
  const nested = await stat(join(dir, DRILL_REPORTS_FOLDER)).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return !nested && basename(dir) === DRILL_REPORTS_FOLDER ? dirname(dir) : dir;
}

async function folderKeyFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => []);
  return names.filter((n) => n.startsWith('evidence-public-key') && n.endsWith('.pem')).map((n) => join(dir, n));
}
