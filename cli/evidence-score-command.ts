import { readiness, type ReadinessScore } from '../history/readiness';
import { parseCommandLine, positionals } from '../operator/args';
import { helpFor } from '../operator/help';
import { outputFormat, printJson, printTable } from '../operator/output';
import type { EvidenceScoreOutput, ReadinessScoreOutput } from '../operator/output-shapes';
import { keyNote } from './coverage-command';
import { dirArgOf, evidenceReadOutput, readDrillEvidence, skippedOutput, withinOf } from './drill-evidence';

const HELP = helpFor('evidence score');

/**
 * `evidence score [--dir <output dir|pack>] [--within <duration>] [--public-key <file>...] [-o text|json]`: the
 * readiness score of the estate and of each drill, with the inputs each is computed from. Reads, never writes.
 */
export async function evidenceScoreCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, positionals: given } = parseCommandLine(argv, HELP);
  positionals(given, [], HELP);
  const format = outputFormat(values.output, HELP);
  const within = withinOf(values.within, HELP);
  const evidence = await readDrillEvidence(dirArgOf(values.dir, env), values['public-key'] ?? [], HELP);
  const report = readiness(evidence.drills, { now: new Date(), withinDays: within.days });

  if (format === 'json') {
    printJson({
      ...evidenceReadOutput(evidence, within, report),
      weights: { ...report.weights },
      estate: scoreOutput(report.estate),
      drills: report.drills.map(scoreOutput),
      skipped: skippedOutput(evidence),
    } satisfies EvidenceScoreOutput);
    return;
  }
  const w = report.weights;
  console.log(`readiness within ${within.text} (since ${report.since}) in ${evidence.dir}:`);
  console.log(keyNote(evidence));
  printTable([HEADER, ...[report.estate, ...report.drills].map(row)]);
  console.log(
    `score = ${w.coverage} × coverage + ${w.passShare} × pass share + ${w.rtoMargin} × RTO margin + ` +
      `${w.freshness} × freshness (docs/operations/readiness.md)`,
  );
  for (const s of evidence.skipped) console.log(`  not read: ${s.file}: ${s.reason}`);
}

const scoreOutput = (s: ReadinessScore): ReadinessScoreOutput => ({ scope: s.scope, score: s.score, inputs: s.inputs });

const HEADER = ['SCOPE', 'SCORE', 'RESOURCES', 'COVERAGE', 'PASS SHARE', 'RTO P95/TARGET', 'RTO MARGIN', 'FRESHNESS'];
const share = (x: number) => x.toFixed(3);

function row(s: ReadinessScore): string[] {
  const i = s.inputs;
  return [
    s.scope,
    s.score.toFixed(1),
    String(i.inScope),
    `${share(i.coverage)} (${i.covered})`,
    `${share(i.passShare)} (${i.latestPassed})`,
    i.rtoP95Ratio === undefined ? `none (${i.withoutRto} without)` : share(i.rtoP95Ratio),
    share(i.rtoMargin),
    share(i.freshness),
  ];
}
