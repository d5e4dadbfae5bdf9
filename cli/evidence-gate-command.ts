import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { dataDirOf } from '../runtime/config';
import { PUBLIC_KEY_FILE } from '../runtime/evidence-seal';
import { DRILL_REPORTS_FOLDER, DrillReader } from '../history/drill-index';
import { evidenceGate, type GateReport, type GateResource, type GateStatus } from '../history/gate';
import { parseCommandLine, positionals } from '../operator/args';
import { CliError, EXIT_CODES, NotFoundError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { outputFormat, printJson, printTable } from '../operator/output';
import type { EvidenceGateOutput, GateReportOutput } from '../operator/output-shapes';
import { PublicKeyFileError, readPublicKeys } from '../operator/public-keys';
import { parseDuration } from './schedule-policies';

const GATE_HELP = helpFor('evidence gate');

/** The gate ran and a resource in scope lacks a verified PASS within the period; the message names each. */
export class GateFailedError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.failed);
  }
}

/** `{"resources": ["<id>", ...]}`: an object, so that fields can be added to it later. */
const ScopeFile = z.strictObject({ resources: z.array(z.string().trim().min(1)).min(1) });

const STATUS_WORDS: Record<GateStatus, string> = {
  pass: 'PASS',
  none: 'none',
  'too-old': 'too old',
  failed: 'failed',
  unsigned: 'unsigned',
  'chain-broken': 'chain broken',
  'key-retired': 'key retired',
};

/**
 * `evidence gate --within <duration> [--scope <file>] [--dir <output dir>] --public-key <file>... |
 * --trust-folder-keys [-o text|json]`. Every argument is checked before a report is read; nothing is written.
 * `untrusted` is evidence verify's error for a check without keys obtained out of band.
 */
export async function evidenceGateCommand(
  argv: string[],
  untrusted: new (message: string) => UsageError,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const { values, positionals: given } = parseCommandLine(argv, GATE_HELP);
  positionals(given, [], GATE_HELP);
  const format = outputFormat(values.output, GATE_HELP);
  const within = values.within;
  if (within === undefined) throw new UsageError(`give --within, the period: 30d, 12h\n${GATE_HELP.usage}`);
  const withinMs = parseDuration(within);
  if (withinMs === undefined || withinMs === 0) {
    throw new UsageError(
      `--within must be a period such as 30d, 12h or 1d12h (days, hours, minutes, seconds), not '${within}'\n${GATE_HELP.usage}`,
    );
  }
  const keyFiles = values['public-key'] ?? [];
  const trustFolder = values['trust-folder-keys'];
  if (keyFiles.length > 0 && trustFolder) {
    throw new UsageError(`give --public-key or --trust-folder-keys, not both\n${GATE_HELP.usage}`);
  }
  if (keyFiles.length === 0 && !trustFolder) {
    // A gate that trusts the keys beside the reports passes whatever whoever can write there seals.
    throw new untrusted(
      `not checked: the keys beside the reports can be replaced by whoever can edit a report. Give --public-key <the ` +
        `key history or public key obtained out of band> (runbooks evidence key show names it), or ` +
        `--trust-folder-keys to trust the folder's keys all the same`,
    );
  }
  const outputDir = await outputDirOf(
    values.dir ?? (env.RUNBOOKS_OUTPUT_DIR?.trim() || join(dataDirOf(env), 'output')),
  );
  const scope = values.scope === undefined ? undefined : await readScope(values.scope);
  const dir = join(outputDir, DRILL_REPORTS_FOLDER);

  // In JSON mode standard output holds the document alone: the notes go to standard error.
  const note = format === 'json' ? (line: string) => console.error(line) : (line: string) => console.log(line);
  const files = keyFiles.length > 0 ? keyFiles : await folderKeyFiles(dir);
  const keys = (await Promise.all(files.map(readPublicKeys))).flat();
  if (keyFiles.length > 0) {
    note('public keys given:');
  } else {
    if (keys.length === 0) throw new PublicKeyFileError(`no ${PUBLIC_KEY_FILE} in ${dir}: give --public-key`);
    note(`trusting the public keys beside the reports in ${dir} (--trust-folder-keys):`);
  }
  for (const k of keys) note(`  ${k.line}`);

  const now = Date.now();
  const sinceMs = now - withinMs;
  const index = await new DrillReader({ outputDir, publicKeys: keys.map((k) => k.key) }).read();
  const resources = evidenceGate(index.drills, { scope: scope?.ids, sinceMs });
  const failing = resources.filter((r) => r.status !== 'pass');
  const since = new Date(sinceMs).toISOString();

  if (format === 'json') {
    printJson({
      result: failing.length === 0 && resources.length > 0 ? 'pass' : 'fail',
      within,
      since,
      checkedAt: new Date(now).toISOString(),
      scope: scope ? 'file' : 'reports',
      ...(scope ? { scopeFile: scope.path } : {}),
      dir,
      keySource: keyFiles.length > 0 ? 'given' : 'folder',
      keyIds: index.keyIds,
      resources: resources.map((r) => ({
        resourceId: r.resourceId,
        ...(r.resourceName === undefined ? {} : { resourceName: r.resourceName }),
        status: r.status,
        ...(r.reason === undefined ? {} : { reason: r.reason }),
        ...(r.lastVerifiedPass ? { lastVerifiedPass: reportOutput(r.lastVerifiedPass) } : {}),
        ...(r.decidedBy ? { decidedBy: reportOutput(r.decidedBy) } : {}),
      })),
      skipped: index.skipped.map((s) => ({ file: s.file, reason: s.reason })),
    } satisfies EvidenceGateOutput);
  } else {
    const scopeText = scope ? `the ${count(scope.ids.length, 'resource')} of ${scope.path}` : 'every resource named';
    console.log(`drills within ${within} (since ${since}) in ${dir}, for ${scopeText}:`);
    if (resources.length > 0) printTable(resources.map(row));
    for (const s of index.skipped) console.log(`  not read: ${s.file}: ${s.reason}`);
  }

  // A gate with nothing to check proves nothing: no scope file, and no report that names a resource.
  if (resources.length === 0) {
    throw new GateFailedError(`evidence gate failed: no drill report in ${dir} names a resource; give --scope`);
  }
  if (failing.length > 0) {
    const list = failing.map((r) => `${r.resourceId} (${STATUS_WORDS[r.status]}: ${r.reason ?? ''})`).join('; ');
    throw new GateFailedError(
      `evidence gate failed: ${failing.length} of ${count(resources.length, 'resource')} without a verified PASS ` +
        `within ${within}: ${list}`,
    );
  }
  note(`evidence gate passed: ${count(resources.length, 'resource')}, each with a verified PASS within ${within}`);
}

function row(r: GateResource): string[] {
  const words = [STATUS_WORDS[r.status], r.resourceId, r.resourceName ?? ''];
  if (r.status !== 'pass') return [...words, r.reason ?? ''];
  return [...words, `${r.decidedBy?.finishedAt ?? ''} ${r.decidedBy?.file ?? ''}`];
}

function reportOutput(r: GateReport): GateReportOutput {
  return {
    reportFile: `${r.file}.json`,
    workflowId: r.workflowId,
    runId: r.runId,
    finishedAt: r.finishedAt,
    verdict: r.verdict,
    seal: r.seal,
  };
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** `--dir`: the output directory, or its drill-reports/ folder itself. */
async function outputDirOf(arg: string): Promise<string> {
  const dir = resolve(arg);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => undefined,
  );
  if (isDir === undefined) throw new NotFoundError(`${dir} does not exist (--dir or RUNBOOKS_OUTPUT_DIR)`);
  if (!isDir) throw new UsageError(`${dir} is not a directory\n${GATE_HELP.usage}`);
  const nested = await stat(join(dir, DRILL_REPORTS_FOLDER)).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return !nested && basename(dir) === DRILL_REPORTS_FOLDER ? dirname(dir) : dir;
}

/** The resource IDs of a --scope file; a file that is not one is a usage error naming what is wrong. */
async function readScope(arg: string): Promise<{ path: string; ids: string[] }> {
  const path = resolve(arg);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const message = `--scope ${path} cannot be read (${code})`;
    throw code === 'ENOENT' ? new NotFoundError(message) : new UsageError(message);
  }
  const expected = `expected {"resources": ["<resource id>", ...]}`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--scope ${path} is not valid JSON (${(err as Error).message}): ${expected}`);
  }
  const parsed = ScopeFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(top)'}: ${issue.message}` : 'unknown';
    throw new UsageError(`--scope ${path} is not a scope file (${where}): ${expected}`);
  }
  return { path, ids: [...new Set(parsed.data.resources)] };
}

async function folderKeyFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => []);
  return names.filter((n) => n.startsWith('evidence-public-key') && n.endsWith('.pem')).map((n) => join(dir, n));
}
