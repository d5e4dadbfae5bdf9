// The limiter of snapshot starts on a real dev server, with the simulator's cap on running backups: three workers on
// one task queue serve drill-like runs (bench/throttle/workflows.ts) that share one limiter per project.
// The 429s are counted at the proxy between the workers and the simulator, not by the limiter.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import type { GeneratedInventory } from '../../simulator/seed-inventory-bulk';
import { SNAPSHOT_SLOTS_WORKFLOW, slotsQuery, snapshotSlotsWorkflowId } from '../../runbooks/snapshot-slots/contract';
import type { SlotsStatus, SnapshotSlotsInput } from '../../runbooks/snapshot-slots/contract';
import type { ManyBackupsInput, ManyBackupsResult } from '../../bench/throttle/workflows';
import {
  drillVaultAndAccount,
  eventually,
  setupE2E,
  startWorker,
  teardownE2E,
  type E2E,
  type RunningWorker,
} from './helpers';

let fx: E2E;
const workers: RunningWorker[] = [];
const connections: NativeConnection[] = [];
let resources: ManyBackupsInput['resources'] = [];
let vaultId = '';
const starts = { accepted: 0, throttled: 0 };

beforeAll(async () => {
  fx = await setupE2E({
    workflowsPath: require.resolve('../../bench/throttle/workflows'),
    worker: { identity: 'worker-1' },
  });
  // Two more workers on the same queue: three instances share the project's one limiter.
  for (const identity of ['worker-2', 'worker-3']) {
    const connection = await NativeConnection.connect({ address: fx.env.address });
    connections.push(connection);
    workers.push(await startWorker(fx, { taskQueue: fx.worker.taskQueue, identity, connection }));
  }
  const inventory = await fx.control.call<GeneratedInventory>('POST', '/inventory/generate', { resources: 90 });
  resources = Object.values(fx.sim.ctx.state.resources)
    .filter((r) => r.sourceAccountId === inventory.sourceAccountId)
    .map((r) => ({ id: r.resource.id, providerResourceId: r.resource.providerResourceId }));
  vaultId = drillVaultAndAccount(fx).vault.id;
  fx.proxy.watch((seen) => {
    if (seen.method !== 'POST' || !seen.path.endsWith('/take-snapshot')) return;
    if (seen.status === 202) starts.accepted += 1;
    if (seen.status === 429) starts.throttled += 1;
  });
  // Started here with short periods and a low history bound, so that sweeps and continue-as-new happen within a
  // test; the activities' update-with-start then finds this run (its conflict policy is USE_EXISTING).
  const input: SnapshotSlotsInput = {
    projectId: fx.sim.projectId,
    tuning: { sweepMs: 2_000, historyLimit: 150 },
  };
  await fx.env.client.workflow.start(SNAPSHOT_SLOTS_WORKFLOW, {
    workflowId: limiterId(),
    taskQueue: fx.worker.taskQueue,
    args: [input],
  });
}, 180_000);

afterAll(async () => {
  for (const w of workers) await w.stop().catch(() => undefined);
  for (const c of connections) await c.close().catch(() => undefined);
  await teardownE2E(fx);
}, 60_000);

function limiterId(): string {
  return snapshotSlotsWorkflowId(fx.sim.projectId);
}

function slots(): Promise<SlotsStatus> {
  return fx.env.client.workflow.getHandle(limiterId()).query(slotsQuery);
}

function startRuns(count: number, perRun: number, parallelism: number, slotted: boolean, from = 0) {
  return Promise.all(
    Array.from({ length: count }, (_, i) => {
      const args: ManyBackupsInput = {
        resources: resources.slice(from + i * perRun, from + (i + 1) * perRun),
        vaultId,
        parallelism,
        slotted,
      };
      return fx.env.client.workflow.start('manyBackups', {
        taskQueue: fx.worker.taskQueue,
        workflowId: `many-backups-${randomUUID()}`,
        args: [args],
      }) as Promise<WorkflowHandle<(input: ManyBackupsInput) => Promise<ManyBackupsResult>>>;
    }),
  );
}

/** The identities of the workers that ran a run's activities of `type`. */
async function activityWorkers(handle: WorkflowHandle, type: string): Promise<Set<string>> {
  const history = await handle.fetchHistory();
  const scheduled = new Map<number, string>();
  const identities = new Set<string>();
  for (const event of history.events ?? []) {
    const s = event.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name) scheduled.set(Number(event.eventId), s.activityType.name);
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.get(Number(started.scheduledEventId)) === type) identities.add(started.identity ?? '');
  }
  return identities;
}

/** What a run asked and gave back: the first ask's activities with the leases each carried, and the release signals. */
async function asksAndReleases(handle: WorkflowHandle) {
  const history = await handle.fetchHistory();
  const firstAsks: string[][] = [];
  const releases: { signal: string; leases: string[] }[] = [];
  for (const event of history.events ?? []) {
    const s = event.activityTaskScheduledEventAttributes;
    if (s?.activityType?.name === 'requestSnapshotSlot') {
      const input = defaultPayloadConverter.fromPayload<{ leaseId: string; leaseIds?: string[] }>(
        s.input?.payloads?.[0] ?? {},
      );
      firstAsks.push(input.leaseIds ?? [input.leaseId]);
    }
    const sent = event.signalExternalWorkflowExecutionInitiatedEventAttributes;
    if (sent?.signalName?.startsWith('releaseSlot')) {
      const payload = defaultPayloadConverter.fromPayload<{ leaseId: string } | { releases: { leaseId: string }[] }>(
        sent.input?.payloads?.[0] ?? {},
      );
      const leases = 'releases' in payload ? payload.releases.map((r) => r.leaseId) : [payload.leaseId];
      releases.push({ signal: sent.signalName, leases });
    }
  }
  return { firstAsks, releases };
}

let slottedShare = 0;

/** Three slotted runs of ten backups, ten lanes each (30 lanes against the cap), and the 429s the proxy saw. */
async function slottedRound(from: number) {
  const before = { ...starts };
  const handles = await startRuns(3, 10, 10, true, from);
  const results = await Promise.all(handles.map((h) => h.result()));
  expect(new Set(results.flatMap((r) => r.jobIds)).size).toBe(30);
  const accepted = starts.accepted - before.accepted;
  const throttled = starts.throttled - before.throttled;
  expect(accepted).toBe(30);
  // The runs counted exactly the 429s the service sent: each one reported once.
  expect(results.reduce((n, r) => n + r.throttled, 0)).toBe(throttled);
  return { handles, throttled, share: throttled / (accepted + throttled) };
}

test('three runs on three workers share one limiter: few 429s once it knows the cap, every slot back', async () => {
  await fx.control.jobsConfig({ backupSeconds: 1, maxConcurrentBackups: 5, outcomes: {} });
  // The first round learns the cap (unknown, below the initial limit of 10): its 429s are the price of learning.
  const learning = await slottedRound(0);
  console.log(
    `slotted, learning: ${learning.throttled} take-snapshot calls of ${30 + learning.throttled} answered 429`,
  );
  // The next drill meets the limit learnt: a 429 only when the limiter probes past the cap.
  const learnt = await slottedRound(30);
  console.log(`slotted, learnt: ${learnt.throttled} take-snapshot calls of ${30 + learnt.throttled} answered 429`);
  expect(learnt.throttled).toBeLessThanOrEqual(3);
  slottedShare = learnt.share;

  const status = await eventually('every slot given back', async () => {
    const s = await slots();
    return s.held === 0 && s.waiting === 0 && s;
  });
  expect(status).toMatchObject({ starts: 60, throttled: learning.throttled + learnt.throttled, reclaimed: 0 });
  // The limit came down from its initial 10 towards the cap, which the limiter learned from the 429s.
  expect(status.limit).toBeLessThan(10);
  expect(status.ceiling).toBeGreaterThanOrEqual(5);
  const handles = [...learning.handles, ...learnt.handles];

  // Each run asked for its ten starts in one activity (its first ask carries the asks of its task), and gave its
  // slots back in signals of the releases of one task each, every slot once.
  for (const h of handles) {
    const { firstAsks, releases } = await asksAndReleases(h);
    expect(firstAsks.map((leases) => leases.length)).toEqual([10]);
    expect(releases.map((r) => r.signal)).not.toContain('releaseSlot');
    const released = releases.flatMap((r) => r.leases);
    expect(new Set(released).size).toBe(released.length);
    expect(new Set(released)).toEqual(new Set(firstAsks[0]));
  }

  // The work was spread over the workers, and the limiter's history stayed bounded by continuing as new.
  const ran = new Set<string>();
  for (const h of handles) for (const id of await activityWorkers(h, 'startBackupInSlot')) ran.add(id);
  expect(ran.size).toBeGreaterThanOrEqual(2);
  await eventually('the limiter continued as new', async () => {
    let runs = 0;
    for await (const _ of fx.env.client.workflow.list({ query: `WorkflowId = '${limiterId()}'` })) runs += 1;
    return runs > 1;
  });
}, 180_000);

test('without the limiter, the same load meets many more 429s', async () => {
  const before = { ...starts };
  const handles = await startRuns(3, 10, 10, false, 60);
  const results = await Promise.all(handles.map((h) => h.result()));
  expect(new Set(results.flatMap((r) => r.jobIds)).size).toBe(30);
  const accepted = starts.accepted - before.accepted;
  const throttled = starts.throttled - before.throttled;
  const straightShare = throttled / (accepted + throttled);
  console.log(`straight: ${throttled} of ${accepted + throttled} take-snapshot calls answered 429`);
  expect(straightShare).toBeGreaterThan(2 * slottedShare);
}, 180_000);

test('the slots of a run that ended without giving them back come back', async () => {
  await fx.control.jobsConfig({ backupSeconds: 600, maxConcurrentBackups: 100 });
  const base = await slots();
  const [handle] = await startRuns(1, 2, 2, true);
  if (!handle) throw new Error('no run');
  await eventually('two slots held', async () => (await slots()).held === 2);
  // Terminated: no finally runs, nothing is released; the limiter finds the run ended.
  await handle.terminate('a holder that never gives its slots back');
  const status = await eventually('the slots reclaimed', async () => {
    const s = await slots();
    return s.held === 0 && s;
  });
  expect(status.reclaimed).toBe(base.reclaimed + 2);
}, 120_000);

test('a cancelled run gives its slots back and leaves the queue', async () => {
  const base = await slots();
  const limit = base.limit;
  const [handle] = await startRuns(1, limit + 3, limit + 3, true, 2);
  if (!handle) throw new Error('no run');
  await eventually('slots held and holders waiting', async () => {
    const s = await slots();
    return s.held + s.waiting === limit + 3 && s.waiting > 0;
  });
  await handle.cancel();
  const status = await eventually('nothing held or waiting', async () => {
    const s = await slots();
    return s.held === 0 && s.waiting === 0 && s;
  });
  // Given back by the run itself, not reclaimed.
  expect(status.reclaimed).toBe(base.reclaimed);
}, 120_000);
