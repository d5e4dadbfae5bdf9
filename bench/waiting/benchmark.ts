// `npm run bench -- --only waiting`: what waiting costs. One 12-hour approval wait (history, service calls, how soon
// an approval is noticed, young and 12 hours old), then 1,000 waiting restores on one worker, their start and their
// wait measured apart, against one activity task per look (200 restores and a 30 s window with --quick).
// BENCH_WAITING_PARTS=approval or =waiters runs one part alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark, Measurement } from '../measure';
import { approvalWaits } from './approval';
import { BenchStack } from './stack';
import { manyWaiters } from './waiters';

export const waitingBenchmark: Benchmark = {
  name: 'waiting',
  async run({ quick, log }) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-waiting-'));
    const stack = await BenchStack.start(dir, log);
    const rounds = 3;
    try {
      const out: Measurement[] = [];
      const parts = process.env.BENCH_WAITING_PARTS?.split(',') ?? ['approval', 'waiters'];
      if (parts.includes('approval')) out.push(...(await approvalWaits(stack, { quick, rounds, log })));
      if (parts.includes('waiters')) out.push(...(await manyWaiters(stack, { quick, rounds, log })));
      return out;
    } finally {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
