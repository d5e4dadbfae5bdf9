import { readFile, stat } from 'node:fs/promises';
import { relative } from 'node:path';
import { shellWord } from '../cli/drill-runs';
import { formatDuration } from '../cli/progress';
import { printTable } from '../cli/workflow-commands';
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

export function printSummary(steps: StepReport[], outputDir: string, totalMs: number): void {
  console.log('\n== Summary');
  printTable([
    ['RUNBOOK', 'WORKFLOW ID', 'TOOK', 'OUTCOME'],
    ...steps.map((s) => [s.title, s.workflowId, formatDuration(s.tookMs), s.outcome]),
  ]);
  const files = steps.flatMap((s) => s.files);
  console.log(`\nFiles written under ${outputDir}:`);
  for (const file of files) console.log(`  ${describeFile(file, outputDir)}`);
  console.log(`\nThe demo took ${formatDuration(totalMs)} in all.`);
  for (const line of consoleLines(outputDir)) console.log(line);
}

/**
 * The demo's last lines: the console over its output folder. The demo's Temporal server stops with it, so its drills,
 * posture report and exports show from their files; Runs and Approvals show what the Temporal server it reaches holds.
 */
export function consoleLines(outputDir: string): string[] {
  return [
    '',
    'To look at these reports over time (drills with their seals, RTO and RPO charts, posture, exports), run:',
    `  runbooks serve --dir ${shellWord(outputDir)}`,
    'and open http://127.0.0.1:8090/drills (docs/console.md). Its Runs and Approvals pages read the Temporal server',
    'that `npm start` runs, or TEMPORAL_ADDRESS.',
  ];
}

/** Size of a file the runbook reported, read back to show it is really there. */
export async function fileFacts(path: string): Promise<{ bytes: number; lines: number }> {
  const [info, text] = await Promise.all([stat(path), readFile(path, 'utf8')]);
  return { bytes: info.size, lines: text.split('\n').filter((l) => l.length > 0).length };
}
