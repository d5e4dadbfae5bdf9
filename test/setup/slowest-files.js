// A jest reporter: after a run of more than a few files, the 15 slowest with their seconds and tier, and every file
// over the budget of its tier (docs/development.md), so that a slow or misplaced test shows in every CI log.
'use strict';

const { relative } = require('node:path');

const SHOWN = 15;
/** Seconds a file may take outside the reliability tier, which waits out real crashes. */
const BUDGET_SECONDS = 90;

class SlowestFiles {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .filter((file) => !file.skipped && file.perfStats.end > 0)
      .map((file) => ({
        path: relative(this.rootDir, file.testFilePath),
        tier: file.displayName?.name ?? '',
        seconds: (file.perfStats.end - file.perfStats.start) / 1000,
        tests: file.numPassingTests + file.numFailingTests,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    if (files.length <= SHOWN) return;
    const row = (f) =>
      `${f.seconds.toFixed(1).padStart(7)} s  ${f.tier.padEnd(12)}${String(f.tests).padStart(5)}  ${f.path}`;
    const lines = [
      '',
      `The ${SHOWN} slowest test files (seconds, tier, tests, file):`,
      ...files.slice(0, SHOWN).map(row),
    ];
    const over = files.filter((f) => f.tier !== 'reliability' && f.seconds > BUDGET_SECONDS);
    if (over.length > 0)
      lines.push(`Over the budget of ${BUDGET_SECONDS} s a file (docs/development.md):`, ...over.map(row));
    const perTier = new Map();
    for (const f of files) perTier.set(f.tier, (perTier.get(f.tier) ?? 0) + f.tests);
    lines.push(`Tests per tier: ${[...perTier].map(([tier, n]) => `${tier} ${n}`).join(', ')}`, '');
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}

module.exports = SlowestFiles;
