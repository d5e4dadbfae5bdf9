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

/** The cap-change case's sizes: a round under the low cap, then one of long jobs under the raised cap. */
const LOW_CAP = 5;
const RAISED_CAP = 20;
const RAISED_JOB_SECONDS = 10;

/**
 * Drill-like runs against a cap of 5 (the limiter learns it and confirms it), then the cap raised to 20 and a round of
 * 200 ten-second backups: how long until the limiter holds 20 slots, and the round's wall time against the ideal for
 * the new cap. Before ceilings aged, the limiter kept probing past the old cap 16 times slower and never got there.
 */
async function capChangeCase(
  stack: BenchStack,
  resources: ManyBackupsInput['resources'],
  vaultId: string,
  counts: { accepted: number; throttled: number },
  log: (line: string) => void,
): Promise<Measurement> {
  await stack.control.jobsConfig({ backupSeconds: 2, maxConcurrentBackups: LOW_CAP, outcomes: {} });
  const low = await oneRound(stack, resources.slice(0, 100), vaultId, 3, RAISED_CAP, true, counts);
  const handle = stack.client.workflow.getHandle(snapshotSlotsWorkflowId(stack.projectId));
  log(
    `cap ${LOW_CAP}: ${low.starts} starts, ${low.throttled} 429s; limiter ${JSON.stringify(await handle.query(slotsQuery))}`,
  );
  await stack.control.jobsConfig({
    backupSeconds: RAISED_JOB_SECONDS,
    maxConcurrentBackups: RAISED_CAP,
    outcomes: {},
  });
  const size = 200;
  const began = Date.now();
  let reachedMs: number | undefined;
  let watching = true;
  const watch = (async () => {
    while (watching && reachedMs === undefined) {
      const status = await handle.query(slotsQuery).catch(() => undefined);
      if (status && status.held >= RAISED_CAP) reachedMs = Date.now() - began;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  const raised = await oneRound(stack, resources.slice(100, 100 + size), vaultId, 3, RAISED_CAP, true, counts);
  watching = false;
  await watch;
  const idealMs = (size / RAISED_CAP) * RAISED_JOB_SECONDS * 1000;
  const reached = reachedMs === undefined ? 'never' : `${(reachedMs / 1000).toFixed(1)} s`;
  log(
    `cap raised to ${RAISED_CAP}: ${raised.starts} starts, ${raised.throttled} 429s, ${RAISED_CAP} slots held after ${reached}`,
  );
  return compared(
    `wall time of ${size} backups of ${RAISED_JOB_SECONDS} s once the cap rose from ${LOW_CAP} to ${RAISED_CAP}`,
    's',
    raised.wallMs / 1000,
    { name: 'the ideal for the raised cap', value: idealMs / 1000 },
    {
      text: `${RAISED_CAP} slots held within the first minute`,
      met: () => reachedMs !== undefined && reachedMs <= 60_000,
    },
    `${RAISED_CAP} slots held ${reached} into the round; a round of 100 two-second backups under the cap of ${LOW_CAP} before it`,
  );
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
      // And 300 more for the cap-change case.
      const generated = await generatedResources(stack.control, stack.service, size * 2 * rounds + 300);
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
      const limiterHandle = stack.client.workflow.getHandle(snapshotSlotsWorkflowId(stack.projectId));
      const limiter = await limiterHandle.query(slotsQuery);
      log(`limiter: ${JSON.stringify(limiter)}`);
      const capChange = await capChangeCase(stack, resources.slice(next), vaultId, counts, log);

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
        capChange,
      ];
      return out;
    } finally {
      await stack.close();
    }
  },
};
