// `npm run bench -- --only drill`: a drill of 20 resources at parallelism 20 on short simulated jobs, against the
// service's own time for the longest backup-and-restore of the drill (what no client can beat).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DrDrillInput } from '../../runbooks/dr-drill/contract';
import { jobPollDelayMs } from '../../runtime/poll-delays';
import { Random } from '../../simulator/random';
import { compared, median, type Benchmark, type Measurement } from '../measure';
import { Fixtures } from '../reliability/fixtures';
import { BenchStack } from '../waiting/stack';
import { GAP_STEP_NAMES, GAP_STEPS, gapSteps, type GapSteps } from './timeline';

const RESOURCES = 20;

interface DrillTimes {
  actualMs: number;
  idealMs: number;
  /** Where the rest went: start to the first backup job, the longest backup-end-to-restore gap, last job to close. */
  profile: { leadMs: number; gapMs: number; tailMs: number; looks: number };
  /** Each resource's backup-to-restore gap, step by step, from the run's history. */
  gaps: GapSteps[];
}

async function oneDrill(stack: BenchStack, fixtures: Fixtures, ids: string[], name: string): Promise<DrillTimes> {
  const input: DrDrillInput = {
    name,
    resources: { ids },
    vaultId: fixtures.vaultId,
    restoreAccountId: fixtures.restoreAccountId,
    destination: { bucketA: { bucketName: 'dr-drill-restores', prefix: `bench/${name}/` } },
    targets: { rpoSeconds: 30 * 86400, rtoSeconds: 3600 },
    // A backup and a restore per resource: the benchmark times both against the service's own.
    recoveryPoint: { select: 'fresh' },
    parallelism: RESOURCES,
  };
  const handle = await stack.client.workflow.start('drDrill', {
    taskQueue: 'bench-drill',
    workflowId: `drill-${name}`,
    args: [input],
  });
  const begun = Date.now();
  await handle.result();
  const looks = stack.countSince(begun, /\/(backup|restore)-jobs\/[^/]+$/, 'GET') / (2 * ids.length);
  const described = await handle.describe();
  const actualMs = (described.closeTime?.getTime() ?? NaN) - described.startTime.getTime();
  // The service's time for each resource: its backup job and its restore job, from creation to end.
  const { backupJobs, restoreJobs } = await stack.control.jobs();
  const span = (job: { jobExecutionDetails: { createdTime: string; endTime?: string } } | undefined) =>
    job ? Date.parse(job.jobExecutionDetails.endTime ?? '') - Date.parse(job.jobExecutionDetails.createdTime) : NaN;
  const since = described.startTime.toISOString();
  const at = (time: string | undefined) => Date.parse(time ?? '');
  const perResource = ids.map((id) => {
    const ours = <T extends { resourceDetails?: { id?: string }; jobExecutionDetails: { createdTime: string } }>(
      jobs: readonly T[],
    ) => jobs.find((j) => j.resourceDetails?.id === id && j.jobExecutionDetails.createdTime >= since);
    const backup = ours(backupJobs)?.jobExecutionDetails;
    const restore = ours(restoreJobs)?.jobExecutionDetails;
    return {
      id,
      backupJobId: backup?.jobId ?? '',
      ideal: span(ours(backupJobs)) + span(ours(restoreJobs)),
      created: at(backup?.createdTime),
      backupEnd: at(backup?.endTime),
      restoreCreated: at(restore?.createdTime),
      gap: at(restore?.createdTime) - at(backup?.endTime),
      ended: at(restore?.endTime),
    };
  });
  const closed = described.closeTime?.getTime() ?? NaN;
  const gaps = await gapSteps(
    handle,
    perResource.map((r) => ({ ...r, resourceId: r.id })),
  );
  return {
    gaps,
    actualMs,
    idealMs: Math.max(...perResource.map((r) => r.ideal)),
    profile: {
      leadMs: Math.min(...perResource.map((r) => r.created)) - described.startTime.getTime(),
      gapMs: Math.max(...perResource.map((r) => r.gap)),
      tailMs: closed - Math.max(...perResource.map((r) => r.ended)),
      looks,
    },
  };
}

export const drillBenchmark: Benchmark = {
  name: 'drill',
  async run({ quick, log }) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-drill-'));
    const stack = await BenchStack.start(dir, log);
    const worker = await stack.startWorker('bench-drill');
    try {
      const fixtures = await Fixtures.load(stack.service, stack.control, new Random(11));
      const ids = Array.from({ length: RESOURCES }, () => fixtures.takeBackedUpResource().id);
      const jobSeconds = quick ? [3] : [3, 5, 6];
      const rounds = 3;
      const out: Measurement[] = [];
      for (const seconds of jobSeconds) {
        await stack.control.jobsConfig({
          backupSeconds: seconds,
          restoreSeconds: seconds,
          maxConcurrentBackups: 50,
          outcomes: {},
        });
        const times: DrillTimes[] = [];
        for (let round = 0; round < rounds; round++) {
          const t = await oneDrill(stack, fixtures, ids, `bench-${seconds}s-${round + 1}-${Date.now()}`);
          const { leadMs, gapMs, tailMs, looks } = t.profile;
          log(
            `${seconds} s jobs, round ${round + 1}: drill ${t.actualMs} ms, service ${t.idealMs} ms ` +
              `(start to first job ${leadMs} ms, longest backup-to-restore gap ${gapMs} ms, last job to close ${tailMs} ms, ` +
              `${looks.toFixed(1)} looks per job)`,
          );
          const step = (k: keyof GapSteps) => median(t.gaps.map((g) => g[k])).toFixed(0);
          log(
            `  backup end to restore, median of ${t.gaps.length}: ${GAP_STEPS.map((k) => `${k} ${step(k)} ms`).join(', ')}`,
          );
          times.push(t);
        }
        const actual = median(times.map((t) => t.actualMs)) / 1000;
        const ideal = median(times.map((t) => t.idealMs)) / 1000;
        const interval = jobPollDelayMs(seconds * 1000) / 1000;
        out.push(
          compared(
            `drill of ${RESOURCES} resources, parallelism ${RESOURCES}, ${seconds} s jobs: wall time`,
            's',
            actual,
            { name: "the service's job time", value: ideal },
            {
              text: `≤1.05× + one poll interval (${interval} s)`,
              met: (_r, value) => value <= 1.05 * ideal + interval,
            },
            `${rounds} rounds; ideal: the longest backup + restore of the drill, creation to end, on the service`,
          ),
        );
        // Where the rest went: before the first job, after the last, and each step between a backup and its restore.
        const profile = (metric: string, ms: number[], notes: string): Measurement => ({
          metric: `drill, ${seconds} s jobs: ${metric}`,
          unit: 's',
          value: median(ms) / 1000,
          notes,
        });
        out.push(
          profile(
            'start to the first job',
            times.map((t) => t.profile.leadMs),
            'median of rounds',
          ),
        );
        const allGaps = times.flatMap((t) => t.gaps);
        for (const k of GAP_STEPS) {
          out.push(
            profile(
              `backup end to restore, ${GAP_STEP_NAMES[k]}`,
              allGaps.map((g) => g[k]),
              `median over every resource of every round (${allGaps.length}), from the run's history`,
            ),
          );
        }
        out.push(
          profile(
            'last job to the end',
            times.map((t) => t.profile.tailMs),
            'median of rounds',
          ),
        );
      }
      return out;
    } finally {
      await stack.stopWorker(worker);
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
