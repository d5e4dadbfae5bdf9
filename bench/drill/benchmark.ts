// `npm run bench -- --only drill`: drills of 20 and 190 resources in lanes on short simulated jobs, against the time
// the service's own jobs allow in those lanes (what no client can beat).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DrDrillInput } from '../../runbooks/dr-drill/contract';
import { jobPollDelayMs } from '../../runtime/poll-delays';
import { compared, median, type Benchmark, type Measurement } from '../measure';
import { drillVaultAndAccount, generatedResources } from '../seeded';
import { BenchStack } from '../waiting/stack';
import { laneTimes, type LaneTimes } from './timeline';

/** A drill's shape: how many resources, in how many lanes, on jobs of how long, and the goal's slack over 1×. */
interface DrillCase {
  resources: number;
  parallelism: number;
  jobSeconds: number;
  /** The goals: ≤1.05× plus one poll interval for 20 resources, ≤1.10× for more. */
  goal: 'poll' | 'ten-percent';
}

const FULL: DrillCase[] = [
  { resources: 20, parallelism: 20, jobSeconds: 3, goal: 'poll' },
  { resources: 20, parallelism: 20, jobSeconds: 5, goal: 'poll' },
  { resources: 20, parallelism: 3, jobSeconds: 5, goal: 'poll' },
  { resources: 190, parallelism: 20, jobSeconds: 2, goal: 'ten-percent' },
];
const QUICK: DrillCase[] = [
  { resources: 20, parallelism: 20, jobSeconds: 3, goal: 'poll' },
  { resources: 20, parallelism: 3, jobSeconds: 3, goal: 'poll' },
];
const ROUNDS = 3;
/** Above any lane count here: the service never throttles these drills, so only the drill's own overhead shows. */
const SERVICE_CAP = 200;

/** Set to a folder to keep each drill's job times there (one JSON file per drill), to see each lane's timeline. */
const JOBS_DIR = process.env.BENCH_DRILL_JOBS;

const caseName = (c: DrillCase) => `${c.resources} resources, parallelism ${c.parallelism}, ${c.jobSeconds} s jobs`;

async function oneDrill(
  stack: BenchStack,
  target: { vaultId: string; restoreAccountId: string },
  ids: string[],
  parallelism: number,
  name: string,
): Promise<LaneTimes> {
  const input: DrDrillInput = {
    name,
    resources: { ids },
    ...target,
    destination: { bucketA: { bucketName: 'dr-drill-restores', prefix: `bench/${name}/` } },
    targets: { rpoSeconds: 30 * 86400, rtoSeconds: 3600 },
    // A backup and a restore per resource: the benchmark times both against the service's own.
    recoveryPoint: { select: 'fresh' },
    parallelism,
  };
  const handle = await stack.client.workflow.start('drDrill', {
    taskQueue: 'bench-drill',
    workflowId: `drill-${name}`,
    args: [input],
  });
  await handle.result();
  const first = await stack.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).describe();
  const last = await handle.describe();
  const { backupJobs, restoreJobs } = await stack.control.jobs();
  const since = first.startTime.toISOString();
  const ours = new Set(ids);
  const mine = <T extends { resourceDetails?: { id?: string }; jobExecutionDetails: { createdTime: string } }>(
    jobs: readonly T[],
  ) => jobs.filter((j) => ours.has(j.resourceDetails?.id ?? '') && j.jobExecutionDetails.createdTime >= since);
  const drill = {
    startedAt: first.startTime.getTime(),
    closedAt: last.closeTime?.getTime() ?? NaN,
    parallelism,
    backups: mine(backupJobs).map((j) => j.jobExecutionDetails),
    restores: mine(restoreJobs).map((j) => j.jobExecutionDetails),
  };
  if (JOBS_DIR) writeFileSync(join(JOBS_DIR, `${name}.json`), JSON.stringify(drill, null, 1));
  return laneTimes(drill);
}

function measured(c: DrillCase, times: LaneTimes[]): Measurement[] {
  const seconds = (ms: number) => ms / 1000;
  const actual = seconds(median(times.map((t) => t.wallMs)));
  const ideal = seconds(median(times.map((t) => t.idealMs)));
  const poll = jobPollDelayMs(c.jobSeconds * 1000) / 1000;
  const goal =
    c.goal === 'poll'
      ? { text: `≤1.05× + one poll interval (${poll} s)`, met: (_r: number, v: number) => v <= 1.05 * ideal + poll }
      : { text: '≤1.10×', met: (r: number) => r <= 1.1 };
  const rounds = `median of ${times.length} rounds`;
  const part = (metric: string, ms: number[], notes: string): Measurement => ({
    metric: `drill of ${caseName(c)}: ${metric}`,
    unit: 's',
    value: seconds(median(ms)),
    notes,
  });
  return [
    compared(
      `drill of ${caseName(c)}: wall time`,
      's',
      actual,
      { name: 'what the jobs allow in these lanes', value: ideal },
      goal,
      `${rounds}; ideal: ceil(resources / parallelism) × (backup + restore), the service's median job times`,
    ),
    part(
      'start to the first backup',
      times.map((t) => t.leadMs),
      rounds,
    ),
    part(
      "a backup's end to its restore",
      times.flatMap((t) => t.noticeMs),
      'median over every resource of every round, from the service’s job times',
    ),
    ...(c.resources > c.parallelism
      ? [
          part(
            "hand-over: a restore's end to the lane's next backup",
            times.flatMap((t) => t.handOverMs),
            'median over every hand-over of every round, from the service’s job times',
          ),
        ]
      : []),
    part(
      'the last job to the end',
      times.map((t) => t.tailMs),
      rounds,
    ),
  ];
}

export const drillBenchmark: Benchmark = {
  name: 'drill',
  async run({ quick, log }) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-drill-'));
    // In memory, so that what is measured is the drill, not the simulator's disk.
    const stack = await BenchStack.start(dir, log, { persist: false });
    const worker = await stack.startWorker('bench-drill');
    try {
      const target = await drillVaultAndAccount(stack.service);
      const cases = quick ? QUICK : FULL;
      const largest = Math.max(...cases.map((c) => c.resources));
      const all = (await generatedResources(stack.control, stack.service, largest)).map((r) => r.id);
      const out: Measurement[] = [];
      for (const c of cases) {
        await stack.control.jobsConfig({
          backupSeconds: c.jobSeconds,
          restoreSeconds: c.jobSeconds,
          maxConcurrentBackups: SERVICE_CAP,
          outcomes: {},
        });
        const ids = all.slice(0, c.resources);
        const times: LaneTimes[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          const name = `bench-${c.resources}-p${c.parallelism}-${c.jobSeconds}s-${round + 1}-${Date.now()}`;
          const t = await oneDrill(stack, target, ids, c.parallelism, name);
          const ms = (v: number) => `${(v / 1000).toFixed(2)} s`;
          log(
            `${caseName(c)}, round ${round + 1}: drill ${ms(t.wallMs)}, jobs allow ${ms(t.idealMs)} ` +
              `(${(t.wallMs / t.idealMs).toFixed(3)}×): start to the first backup ${ms(t.leadMs)}, backup end to ` +
              `restore ${ms(median(t.noticeMs))} median, hand-over ${ms(median(t.handOverMs))} median, last job ` +
              `to the end ${ms(t.tailMs)}`,
          );
          times.push(t);
        }
        out.push(...measured(c, times));
      }
      return out;
    } finally {
      await stack.stopWorker(worker);
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
