// `npm run bench -- --only throttle`: the share of take-snapshot calls answered 429 when three worker processes run
// drill-like runs against a cap of 20 running backups, with the project's limiter of snapshot starts
// (runbooks/snapshot-slots) and, interleaved in the same run, without it (each start retrying on its own, as drills
// did). Also the wall time of each against the ideal for the cap (resources / cap × job time).
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { slotsQuery, snapshotSlotsWorkflowId } from '../../runbooks/snapshot-slots/contract';
import { runbookBundleOptions } from '../../worker/runbook-worker';
import { compared, type Benchmark, type Measurement } from '../measure';
import { drillVaultAndAccount, generatedResources } from '../seeded';
import { BenchStack } from '../waiting/stack';
import type { ManyBackupsInput } from './workflows';

const CAP = 20;
const WORKERS = 3;
const TASK_QUEUE = 'bench-throttle';

interface Round {
  starts: number;
  throttled: number;
  wallMs: number;
}

async function oneRound(
  stack: BenchStack,
  resources: ManyBackupsInput['resources'],
  vaultId: string,
  runs: number,
  lanes: number,
  slotted: boolean,
  counts: { accepted: number; throttled: number },
): Promise<Round> {
  const before = { ...counts };
  const began = Date.now();
  const per = Math.ceil(resources.length / runs);
  const handles = await Promise.all(
    Array.from({ length: runs }, (_, i) => {
      const input: ManyBackupsInput = {
        resources: resources.slice(i * per, (i + 1) * per),
        vaultId,
        parallelism: lanes,
        slotted,
      };
      return stack.client.workflow.start('manyBackups', {
        taskQueue: TASK_QUEUE,
        workflowId: `bench-throttle-${slotted ? 'slotted' : 'straight'}-${randomUUID()}`,
        args: [input],
      });
    }),
  );
  await Promise.all(handles.map((h) => h.result()));
  return {
    starts: counts.accepted - before.accepted,
    throttled: counts.throttled - before.throttled,
    wallMs: Date.now() - began,
  };
}

export const throttleBenchmark: Benchmark = {
  name: 'throttle',
  async run({ quick, log }) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-throttle-'));
    const stack = await BenchStack.start(dir, log);
    try {
      const { code } = await bundleWorkflowCode({
        ...runbookBundleOptions(true),
        workflowsPath: require.resolve('./workflows'),
        logger: new DefaultLogger('WARN'),
      });
      const bundle = join(dir, 'throttle-bundle.js');
      await writeFile(bundle, code);
      for (let i = 0; i < WORKERS; i++) await stack.startWorker(TASK_QUEUE, { RUNBOOKS_WORKFLOW_BUNDLE: bundle });

      const size = quick ? 300 : 600;
      const jobSeconds = 2;
      const runs = 3;
      const lanes = 20;
      const rounds = quick ? 1 : 2;
      const generated = await generatedResources(stack.control, stack.service, size * 2 * rounds);
      const resources: ManyBackupsInput['resources'] = generated.map(({ id, providerResourceId }) => ({
        id,
        providerResourceId,
      }));
      const { vaultId } = await drillVaultAndAccount(stack.service);
      await stack.control.jobsConfig({ backupSeconds: jobSeconds, maxConcurrentBackups: CAP, outcomes: {} });

      const counts = { accepted: 0, throttled: 0 };
      stack.proxy.watch((seen) => {
        if (seen.method !== 'POST' || !seen.path.endsWith('/take-snapshot')) return;
        if (seen.status === 202) counts.accepted += 1;
        if (seen.status === 429) counts.throttled += 1;
      });

      const slotted: Round[] = [];
      const straight: Round[] = [];
      let next = 0;
      const take = () => resources.slice(next, (next += size));
      // A, B, A, B: the limiter keeps what it learned from one slotted round to the next, as between drills.
      for (let round = 0; round < rounds; round++) {
        for (const withLimiter of [true, false]) {
          const r = await oneRound(stack, take(), vaultId, runs, lanes, withLimiter, counts);
          (withLimiter ? slotted : straight).push(r);
          const share = r.throttled / (r.starts + r.throttled);
          log(
            `${withLimiter ? 'with the limiter   ' : 'without the limiter'} round ${round + 1}: ${r.starts} starts, ` +
              `${r.throttled} 429s (${(share * 100).toFixed(1)}%), ${(r.wallMs / 1000).toFixed(1)} s`,
          );
        }
      }
      const limiter = await stack.client.workflow.getHandle(snapshotSlotsWorkflowId(stack.projectId)).query(slotsQuery);
      log(`limiter: ${JSON.stringify(limiter)}`);

      const sum = (rs: Round[], k: keyof Round) => rs.reduce((n, r) => n + r[k], 0);
      const share = (rs: Round[]) => sum(rs, 'throttled') / (sum(rs, 'starts') + sum(rs, 'throttled'));
      const idealMs = (size / CAP) * jobSeconds * 1000;
      const setup = `${size} backups per round, ${runs} runs × ${lanes} lanes on ${WORKERS} worker processes, cap ${CAP}, ${jobSeconds} s jobs, ${rounds} round(s) each`;
      const out: Measurement[] = [
        compared(
          'share of take-snapshot calls answered 429, with the limiter',
          '%',
          share(slotted) * 100,
          { name: 'without the limiter', value: share(straight) * 100 },
          { text: '≤5%', met: (_ratio, value) => value <= 5 },
          setup,
        ),
        compared(
          'wall time per round, with the limiter',
          's',
          sum(slotted, 'wallMs') / slotted.length / 1000,
          { name: 'the ideal for the cap', value: idealMs / 1000 },
          undefined,
          `without the limiter: ${(sum(straight, 'wallMs') / straight.length / 1000).toFixed(1)} s per round`,
        ),
      ];
      return out;
    } finally {
      await stack.close();
    }
  },
};
