#!/usr/bin/env node
// `npm run bench:cli [-- --rounds N]`: the CLI's start-up against `node -e 0`, interleaved, with module counts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const PRELOAD = join(__dirname, 'count-modules.js');

interface Case {
  name: string;
  args: string[];
  /** The exit code that means the case ran as intended. */
  exitCode: number;
}

// status and start without a server: no TEMPORAL_ADDRESS and an empty data dir, so they stop at "not connected" (3).
const CASES: Case[] = [
  { name: 'node -e 0', args: ['-e', '0'], exitCode: 0 },
  { name: 'runbooks --help', args: [CLI, '--help'], exitCode: 0 },
  { name: 'runbooks status', args: [CLI, 'status', 'bench-id'], exitCode: 3 },
  { name: 'runbooks start', args: [CLI, 'start', 'costExport', '--input', '{"window":"previous-day"}'], exitCode: 3 },
];

function run(c: Case, env: NodeJS.ProcessEnv, preload: boolean): number {
  const args = preload ? ['-r', PRELOAD, ...c.args] : c.args;
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== c.exitCode) {
    throw new Error(`${c.name}: exit ${String(result.status)}, expected ${c.exitCode}\n${result.stderr}`);
  }
  return ms;
}

function moduleCount(c: Case, env: NodeJS.ProcessEnv, dir: string): number {
  const out = join(dir, 'modules.json');
  run(c, { ...env, CLI_BENCH_MODULES_OUT: out }, true);
  const modules: unknown = JSON.parse(readFileSync(out, 'utf8'));
  if (!Array.isArray(modules)) throw new Error(`${c.name}: no module list`);
  return modules.length;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

function main(): void {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' } }, strict: true });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 5)
    throw new Error(`--rounds must be an integer ≥ 5, got '${values.rounds}'`);

  const dir = mkdtempSync(join(tmpdir(), 'cli-bench-'));
  const env: NodeJS.ProcessEnv = { ...process.env, RUNBOOKS_DATA_DIR: dir };
  delete env.TEMPORAL_ADDRESS;
  try {
    // One untimed run each warms the file cache, so round 1 is not an outlier.
    for (const c of CASES) run(c, env, false);
    const times = CASES.map((): number[] => []);
    for (let round = 0; round < rounds; round++) {
      // Interleaved (A, B, … A, B, …): drift on a shared machine lands on every case alike.
      CASES.forEach((c, i) => times[i]?.push(run(c, env, false)));
    }
    const counts = CASES.map((c) => moduleCount(c, env, dir));
    const medians = times.map(median);
    const base = { ms: medians[0] ?? NaN, modules: counts[0] ?? NaN };

    console.log(`CLI start-up, ${rounds} interleaved rounds, node ${process.version} (timed runs without the preload)`);
    console.log(`${'case'.padEnd(18)}${'median ms'.padStart(11)}${'× node'.padStart(9)}${'modules'.padStart(9)}`);
    CASES.forEach((c, i) => {
      const ms = medians[i] ?? NaN;
      const ratio = (ms / base.ms).toFixed(2);
      console.log(
        `${c.name.padEnd(18)}${ms.toFixed(1).padStart(11)}${ratio.padStart(9)}${String(counts[i]).padStart(9)}`,
      );
    });
    const help = { ms: medians[1] ?? NaN, modules: counts[1] ?? NaN };
    console.log(
      `summary: runbooks --help ${help.ms.toFixed(0)} ms = ${(help.ms / base.ms).toFixed(2)}× node -e 0 ` +
        `(${base.ms.toFixed(0)} ms), ${help.modules} modules vs ${base.modules} (the preload); ` +
        `status ${counts[2]} and start ${counts[3]} modules up to "not connected"`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
