import { keysToTrust, outputDirOf, refuseUntrusted } from './evidence-inputs';
import { rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { dataDirOf } from '../runtime/config';
import { CONTROLS } from '../history/controls';
import { DRILL_REPORTS_FOLDER, DrillReader } from '../history/drill-index';
import { oscalAssessmentResults, verifiedDrills } from '../history/oscal';
import { parseCommandLine, positionals } from '../operator/args';
import { UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { parseDuration } from './schedule-policies';

const OSCAL_HELP = helpFor('evidence oscal');
// The package's version (package.json): the document's metadata version.
const TOOL_VERSION = '0.1.0';

/**
 * `evidence oscal [--dir <output dir>] --public-key <file>... | --trust-folder-keys [--out <file>] [--within <d>]`:
 * OSCAL assessment results of the drill reports against the control catalogue, to standard output or --out.
 */
export async function evidenceOscalCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
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
  refuseUntrusted(keyFiles, trustFolder === true, OSCAL_HELP);
  const outputDir = await outputDirOf(
    values.dir ?? (env.RUNBOOKS_OUTPUT_DIR?.trim() || join(dataDirOf(env), 'output')),
    OSCAL_HELP,
  );
  const dir = join(outputDir, DRILL_REPORTS_FOLDER);
  const { keys, given: keysGiven } = await keysToTrust(
    { keyFiles, trustFolder: trustFolder === true, dir },
    OSCAL_HELP,
  );
  // Standard output may hold the document: the notes go to standard error.
  console.error(keysGiven ? 'public keys given:' : `trusting the public keys beside the reports in ${dir}:`);
  for (const k of keys) console.error(`  ${k.line}`);

  const index = await new DrillReader({ outputDir, publicKeys: keys.map((k) => k.key) }).read();
  const doc = oscalAssessmentResults({
    drills: index.drills,
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
    `${verifiedDrills(index.drills).length} verified drill report(s) of ${index.drills.length}; ` +
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
