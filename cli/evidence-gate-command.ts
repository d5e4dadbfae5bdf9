import { keysToTrust, outputDirOf, refuseUntrusted } from './evidence-inputs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { dataDirOf } from '../runtime/config';
import { DRILL_REPORTS_FOLDER, DrillReader } from '../history/drill-index';
import { evidenceGate, type GateReport, type GateResource, type GateStatus } from '../history/gate';
import { parseCommandLine, positionals } from '../operator/args';
import { CliError, EXIT_CODES, NotFoundError, UsageError } from '../operator/errors';
import { helpFor } from '../operator/help';
import { outputFormat, printJson, printTable } from '../operator/output';
import type { EvidenceGateOutput, GateReportOutput } from '../operator/output-shapes';
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
 */
export async function evidenceGateCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
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
  refuseUntrusted(keyFiles, trustFolder === true, GATE_HELP);
  const outputDir = await outputDirOf(
    values.dir ?? (env.RUNBOOKS_OUTPUT_DIR?.trim() || join(dataDirOf(env), 'output')),
    GATE_HELP,
  );
  const scope = values.scope === undefined ? undefined : await readScope(values.scope);
  const dir = join(outputDir, DRILL_REPORTS_FOLDER);

  // In JSON mode standard output holds the document alone: the notes go to standard error.
  const note = format === 'json' ? (line: string) => console.error(line) : (line: string) => console.log(line);
  const { keys, given: keysGiven } = await keysToTrust({ keyFiles, trustFolder: trustFolder === true, dir }, GATE_HELP);
  note(
    keysGiven ? 'public keys given:' : `trusting the public keys beside the reports in ${dir} (--trust-folder-keys):`,
  );
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
