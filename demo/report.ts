import { readFile, stat } from 'node:fs/promises';
import { relative } from 'node:path';
import { shellWord } from '../operator/drill-runs';
import { formatDuration } from '../operator/progress';
import { printTable } from '../operator/output';
import type { ExportSummary } from '../runtime/export-file';

export interface WrittenFile {
  path: string;
  /** Data rows (CSV rows without the header, or the report's resource rows). */
  rows?: number;
  bytes?: number;
  sha256?: string;
}

/** The CSV an export runbook wrote, from its summary. */
export function exportedFile(e: ExportSummary): WrittenFile {
  return { path: e.path, rows: e.rows, bytes: e.bytes, sha256: e.sha256 };
}

/** What one runbook of the demo did, for the summary at the end. */
export interface StepReport {
  title: string;
  workflowId: string;
  tookMs: number;
  outcome: string;
  lines: string[];
  files: WrittenFile[];
  /** Why the step did not succeed although its run completed (a drill that did not pass): the demo then exits 4. */
  failure?: string;
}

export function printStep(step: StepReport, root: string): void {
  console.log(`  done in ${formatDuration(step.tookMs)}: ${step.outcome}`);
  for (const line of step.lines) console.log(`    ${line}`);
  for (const file of step.files) console.log(`    wrote ${describeFile(file, root)}`);
}

export function describeFile(file: WrittenFile, root: string): string {
  const parts = [relative(root, file.path) || file.path];
  if (file.rows !== undefined) parts.push(`${file.rows} rows`);
  if (file.bytes !== undefined) parts.push(`${file.bytes} bytes`);
  if (file.sha256) parts.push(`sha256 ${file.sha256.slice(0, 12)}…`);
  return parts.join(', ');
}

export function printSummary(steps: StepReport[], outputDir: string, totalMs: number, serving = false): void {
  console.log('\n== Summary');
  printTable([
    ['RUNBOOK', 'WORKFLOW ID', 'TOOK', 'OUTCOME'],
    ...steps.map((s) => [s.title, s.workflowId, formatDuration(s.tookMs), s.outcome]),
  ]);
  const files = steps.flatMap((s) => s.files);
  console.log(`\nFiles written under ${outputDir}:`);
  for (const file of files) console.log(`  ${describeFile(file, outputDir)}`);
  console.log(`\nThe demo took ${formatDuration(totalMs)} in all.`);
  if (!serving) for (const line of consoleLines(outputDir)) console.log(line);
}

/**
 * The demo's last lines: the console. `--serve` keeps the demo's Temporal server up under it, runs and all; after the
 * demo, `runbooks serve` still shows its drills, posture report and exports from their files.
 */
export function consoleLines(outputDir: string): string[] {
  return [
    '',
    "To see this demo's runs, approvals, drills, posture and exports in the web console, run it with --serve:",
    '  npm run demo -- --serve        (then open http://127.0.0.1:8090/runs; Ctrl-C stops it)',
    'After the demo, the console still reads its reports (Runs and Approvals then show the Temporal server you reach):',
    `  runbooks serve --dir ${shellWord(outputDir)}`,
    'See docs/console.md.',
  ];
}

/** Size of a file the runbook reported, read back to show it is really there. */
export async function fileFacts(path: string): Promise<{ bytes: number; lines: number }> {
  const [info, text] = await Promise.all([stat(path), readFile(path, 'utf8')]);
  return { bytes: info.size, lines: text.split('\n').filter((l) => l.length > 0).length };
}
