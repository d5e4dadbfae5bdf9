#!/usr/bin/env node
// `npm run bench [-- --only a,b --quick]`: every benchmark, each against its baseline measured in the same run. Prints
// a table and writes bench/results/<date>.json (<date>.<names>[.quick].json for a partial run).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Benchmark, Measurement } from './measure';

/** Each benchmark lives in its own folder and is loaded only when it runs. */
const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  export: () => import('./export/benchmark.js').then((m) => m.exportBenchmark),
  client: () => import('./client/benchmark.js').then((m) => m.clientBenchmark),
  waiting: () => import('./waiting/benchmark.js').then((m) => m.waitingBenchmark),
  drill: () => import('./drill/benchmark.js').then((m) => m.drillBenchmark),
  throttle: () => import('./throttle/benchmark.js').then((m) => m.throttleBenchmark),
  scale: () => import('./scale/benchmark.js').then((m) => m.scaleBenchmark),
  history: () => import('./history/benchmark.js').then((m) => m.historyBenchmark),
  console: () => import('./console/benchmark.js').then((m) => m.consoleBenchmark),
  'clean-point': () => import('./clean-point/benchmark.js').then((m) => m.cleanPointBenchmark),
  plan: () => import('./plan/benchmark.js').then((m) => m.planBenchmark),
  coverage: () => import('./coverage/benchmark.js').then((m) => m.coverageBenchmark),
};

const fmt = (n: number | undefined, digits = 2) => (n === undefined || Number.isNaN(n) ? '' : n.toFixed(digits));

function table(rows: Measurement[]): string {
  const lines = rows.map((m) => [
    m.metric,
    `${fmt(m.value)} ${m.unit}`,
    m.baseline ? `${m.baseline.name}: ${fmt(m.baseline.value)} ${m.unit}` : '',
    m.ratio === undefined ? '' : `${fmt(m.ratio)}×`,
    m.goal ?? '',
    m.met === undefined ? '' : m.met ? 'met' : 'NOT MET',
  ]);
  const head = ['metric', 'value', 'baseline', 'ratio', 'goal', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  return [head, ...lines]
    .map((l) =>
      l
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, quick: { type: 'boolean', default: false } },
    strict: true,
  });
  const names = values.only?.split(',').map((n) => n.trim()) ?? Object.keys(BENCHMARKS);
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}\n`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const results: { benchmark: string; measurements: Measurement[] }[] = [];
  for (const name of names) {
    const load = BENCHMARKS[name];
    if (!load) continue;
    log(`== ${name}`);
    const bench = await load();
    const measurements = await bench.run({ quick: values.quick, log });
    results.push({ benchmark: name, measurements });
    console.log(`\n${name}\n${table(measurements)}`);
  }
  const dir = resolve(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  // A full run is the day's `<date>.json`; a partial or quick one is named for what it ran, so it replaces no full run.
  const parts = [...(values.only ? [names.join('+')] : []), ...(values.quick ? ['quick'] : [])];
  const file = join(dir, `${[new Date().toISOString().slice(0, 10), ...parts].join('.')}.json`);
  const machine = { node: process.version, platform: process.platform, cpus: (await import('node:os')).cpus().length };
  const run = { command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}` };
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), ...run, machine, results }, null, 2) + '\n');
  console.log(`\nwritten to ${file}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
    process.exit(1);
  },
);
