// `npm run bench -- --only console`: the console's pages over HTTP with 1,000 sealed drill reports on disk, and a real
// Temporal dev server holding a page of runs (restores waiting for approval, whose worker answers each status query,
// and finished posture reports), p50 and p95 per page, against the console's smallest answer (GET /login, a redirect
// that reads nothing) measured in the same rounds; and the history index read alone, which the Drills page waits on.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { waitingApprovals } from '../../operator/approvals';
import { startConsole } from '../../console/serve-command';
import { HistoryIndex } from '../../history';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { writeReports } from '../history/benchmark';
import { compared, percentile, type Benchmark, type Measurement } from '../measure';
import { startWaiting } from '../waiting/approval';
import { BenchStack, restoreTargets, sleep } from '../waiting/stack';

const PAGES = ['/runs', '/approvals', '/drills', '/posture', '/exports'];
const REPORTS = 1_000;
/** Open runs on the Runs page, each asked for its status: restores waiting for their second approval. */
const WAITING = 40;
/** Closed runs beside them, to fill the Runs page's 100 rows. */
const FINISHED = 60;
const TASK_QUEUE = 'bench-console';

/** A page of runs on the stack's Temporal: WAITING restores waiting for approval, FINISHED posture reports done. */
async function seedRuns(stack: BenchStack, log: (line: string) => void): Promise<void> {
  await stack.control.jobsConfig({ backupSeconds: 1, restoreSeconds: 1, outcomes: {} });
  await stack.control.addPolicy({ requiredApprovals: 2, approvalWindowHours: 48, executionWindowHours: 24 });
  const { targets, restoreAccountId } = await restoreTargets(stack);
  for (let i = 0; i < WAITING; i++) {
    const target = targets[i % targets.length] ?? targets[0];
    if (target) await startWaiting(stack, TASK_QUEUE, target, restoreAccountId);
  }
  for (let i = 0; i < FINISHED; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, FINISHED - i) }, () =>
        stack.client.workflow.execute('postureReport', {
          taskQueue: TASK_QUEUE,
          workflowId: `bench-posture-${randomUUID()}`,
          args: [{ maxSnapshotAgeHours: 72, pageSize: 100 }],
        }),
      ),
    );
  }
  for (let i = 0; ; i++) {
    const waiting = await waitingApprovals(stack.client, WAITING + 10);
    if (waiting.length === WAITING && waiting.every((w) => w.answered && w.requestId)) break;
    if (i > 600) throw new Error(`${waiting.length} of ${WAITING} restores wait for approval after a minute`);
    await sleep(100);
  }
  log(`console: ${WAITING} restores wait for approval, ${FINISHED} posture reports finished`);
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** One GET, its body read whole; a status other than `expected` fails the benchmark. */
async function get(url: string, expected: number): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.arrayBuffer();
  if (response.status !== expected) throw new Error(`GET ${url} answered ${response.status}, not ${expected}`);
}

export const consoleBenchmark: Benchmark = {
  name: 'console',
  async run({ quick, log }) {
    const rounds = quick ? 20 : 100;
    const root = await mkdtemp(join(tmpdir(), 'bench-console-'));
    const stack = await BenchStack.start(join(root, 'stack'), log, { persist: false });
    try {
      const key = await loadOrCreateEvidenceKey(join(root, 'key.pem'));
      const output = join(root, 'output');
      await mkdir(join(output, 'drill-reports'), { recursive: true });
      await writeReports(join(output, 'drill-reports'), key, REPORTS);
      await stack.startWorker(TASK_QUEUE);
      await seedRuns(stack, log);
      const web = await startConsole({
        client: stack.client,
        outputDir: output,
        publicKeys: [key.publicKey],
        namespace: 'default',
        port: 0,
      });
      const index = new HistoryIndex({ outputDir: output, publicKeys: [key.publicKey] });
      try {
        // The first reads verify every seal once; the rounds measure a console that has been up for a while.
        const cold = await time(() => get(`${web.url}/drills`, 200));
        await index.read();
        log(`console: ${REPORTS} reports written, first /drills ${cold.toFixed(0)} ms`);
        const times = new Map<string, number[]>([...PAGES, '/login', 'index'].map((p) => [p, []]));
        for (let i = 0; i < rounds; i++) {
          times.get('/login')?.push(await time(() => get(`${web.url}/login`, 303)));
          times.get('index')?.push(await time(() => index.read()));
          for (const page of PAGES) times.get(page)?.push(await time(() => get(`${web.url}${page}`, 200)));
        }
        const of = (p: string) => times.get(p) ?? [];
        const p50 = (p: string) => percentile(of(p), 50).toFixed(1);
        const baseline = { name: 'GET /login (a redirect)', value: percentile(of('/login'), 95) };
        const goal = { text: 'p95 ≤300 ms', met: (_ratio: number, value: number) => value <= 300 };
        const out: Measurement[] = PAGES.map((page) => {
          const note = `${REPORTS} sealed drill reports, ${WAITING} runs waiting and ${FINISHED} finished, ${rounds} rounds; p50 ${p50(page)} ms, baseline p50 ${p50('/login')} ms; first /drills ${cold.toFixed(0)} ms`;
          return compared(`GET ${page}, p95`, 'ms', percentile(of(page), 95), baseline, goal, note);
        });
        out.push({
          metric: 'history index read alone, p95',
          unit: 'ms',
          value: percentile(of('index'), 95),
          notes: `p50 ${p50('index')} ms`,
        });
        for (const m of out) log(`${m.metric}: ${m.value.toFixed(1)} ms (${m.notes ?? ''})`);
        return out;
      } finally {
        await web.close();
      }
    } finally {
      await stack.close();
      await rm(root, { recursive: true, force: true });
    }
  },
};
