// `npm run bench -- --only coverage`: what a rotating drill's first activity costs at each run over a large estate.
// Resolving its selection over 50,000 resources (`resolveSelection`, through the client, against the simulator in its
// own process) and choosing the next 20 of the scope from 60 days of sealed reports (read with the worker's
// DrillReader, then coverageByResource and nextToDrill), each against listing the whole inventory through the same
// client, measured in the same run, interleaved.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MockActivityEnvironment } from '@temporalio/testing';
import { BackupServiceClient, closeHttpPools, collect } from '../../api';
import type { CallRecord } from '../../api/http';
import { DAY_MS } from '../../history/coverage';
import { DrillReader } from '../../history/drill-index';
import { resolveSelection, type ResourceRef } from '../../runbooks/dr-drill/activities';
import { selectIds, serverFiltersOf } from '../../runbooks/dr-drill/selection';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { SimulatorControlClient } from '../../simulator/control-client';
import type { GeneratedInventory } from '../../simulator/seed-inventory-bulk';
import type { SimulatorAddress } from '../client/simulator-process';
import { compared, median, type Benchmark, type Measurement } from '../measure';
import { chooseNext, pickFrom, runStart, writeRotationHistory } from './evidence';
import { accountSizes, drillSelection, GENERATED_PROVIDERS, GENERATION_SEED } from './selection';

const FULL = { resources: 50_000, rounds: 3 };
const QUICK = { resources: 5_000, rounds: 5 };
/** How many resources a rotating run drills (`coverage.perRun`), and the days of reports before it. */
const PER_RUN = 20;
const DAYS = 60;
/** As `resolveSelection` lists: by name, 100 a page. */
const LISTING = { sorts: [{ field: 'resourceName' as const, order: 'ASC' as const }] };
const PAGE_SIZE = 100;

/** The simulator in its own process (the client benchmark's), so that its work runs beside the client's. */
function startSimulator(): Promise<{ child: ChildProcess; address: SimulatorAddress }> {
  const child = fork(join(__dirname, '..', 'client', 'simulator-process.js'), [], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (address) => resolve({ child, address: address as SimulatorAddress }));
    child.once('exit', (code) => reject(new Error(`the simulator exited with ${String(code)}`)));
  });
}

/** Adds four accounts of generated resources to the seeded ones, so that the inventory holds `total`. */
async function generateEstate(control: SimulatorControlClient, total: number): Promise<GeneratedInventory[]> {
  const seeded = (await control.state()).counts.resources;
  const sizes = accountSizes(total, seeded);
  const accounts: GeneratedInventory[] = [];
  for (const [i, cloudProvider] of GENERATED_PROVIDERS.entries()) {
    const body = { resources: sizes[i], cloudProvider, seed: GENERATION_SEED + i };
    accounts.push(await control.call<GeneratedInventory>('POST', '/inventory/generate', body));
  }
  return accounts;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const from = performance.now();
  const value = await fn();
  return { ms: performance.now() - from, value };
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
const count = (metric: string, unit: string, value: number, notes?: string): Measurement => ({
  metric,
  unit,
  value,
  ...(notes ? { notes } : {}),
});

export const coverageBenchmark: Benchmark = {
  name: 'coverage',
  async run({ quick, log }) {
    const { resources: total, rounds } = quick ? QUICK : FULL;
    const root = await mkdtemp(join(tmpdir(), 'bench-coverage-'));
    const { child, address } = await startSimulator();
    try {
      const control = new SimulatorControlClient(address.baseUrl);
      const generated = await timed(() => generateEstate(control, total));
      const main = generated.value[0];
      if (!main) throw new Error('no account was generated');
      log(`coverage: ${total} resources in the simulator (${ms(generated.ms)} to generate)`);

      // Pages of the resource list the client asked for: what each case cost the service.
      let pages = 0;
      const onCall = (call: CallRecord) => {
        if (call.method === 'POST' && call.endpoint.endsWith('/resources')) pages++;
      };
      const client = new BackupServiceClient({
        baseUrl: address.baseUrl,
        projectId: address.projectId,
        credentials: address,
        onCall,
      });
      const listAll = () => collect(client.listResources(LISTING, { pageSize: PAGE_SIZE }));

      // Untimed: the inventory as the service lists it, to build the selection's lists and its expected scope.
      const inventory = await listAll();
      if (inventory.length !== total) throw new Error(`the inventory lists ${inventory.length}, not ${total}`);
      const selection = drillSelection(inventory, main.providerAccountId);
      const expected = selectIds(inventory, selection);
      const serverFilters = serverFiltersOf(selection);
      const listedByResolve =
        (serverFilters ? (await collect(client.listResources({ filters: serverFilters, ...LISTING }))).length : 0) +
        (selection.include?.length ?? 0);

      const resolve = () =>
        new MockActivityEnvironment().run<[], ResourceRef[], () => Promise<ResourceRef[]>>(() =>
          resolveSelection(client, selection),
        );
      const scope = await resolve();
      const scopeIds = scope.map((r) => r.id);
      if (scopeIds.join() !== expected.join()) {
        throw new Error(`resolveSelection took ${scope.length} resources, selectIds over the listing ${expected.length}`);
      }
      log(`coverage: the selection takes ${scope.length} of ${total} (the service lists ${listedByResolve})`);

      // Sixty days of a rotating drill's reports, ending the day before the run measured.
      const outputDir = join(root, 'output');
      const evidenceKey = await loadOrCreateEvidenceKey(join(root, 'evidence-key.pem'));
      const firstDayMs = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAYS * DAY_MS;
      const history = await timed(() =>
        writeRotationHistory({ outputDir, evidenceKey, scope, days: DAYS, perRun: PER_RUN, firstDayMs }),
      );
      const now = runStart(firstDayMs, DAYS);
      // A fresh reader each time: after each run's new report, its chain is verified again, as here.
      const choose = () => chooseNext(new DrillReader({ outputDir }), scopeIds, PER_RUN, now);
      const first = await choose();
      const unverified = first.drills.filter((d) => d.seal.status !== 'verified').length;
      if (first.drills.length !== DAYS || unverified > 0) {
        throw new Error(`read ${first.drills.length} reports, ${unverified} of them not verified`);
      }
      const reasons = [...new Set(first.picks.map((p) => p.reason))]
        .map((reason) => `${first.picks.filter((p) => p.reason === reason).length} ${reason}`)
        .join(', ');
      log(
        `coverage: ${DAYS} sealed reports written (${history.value.results} results, ${history.value.failed} failed) ` +
          `in ${ms(history.ms)}; next ${first.picks.length}: ${reasons}`,
      );

      // Interleaved, each round starting one case later; the first round warms up and is not kept.
      const samples = { baseline: [] as number[], resolve: [] as number[], choose: [] as number[], pure: [] as number[] };
      const pagesOf = { baseline: 0, resolve: 0 };
      const cases: { name: keyof typeof samples; run: () => Promise<unknown> }[] = [
        { name: 'baseline', run: listAll },
        { name: 'resolve', run: resolve },
        { name: 'choose', run: choose },
        { name: 'pure', run: async () => pickFrom(first.drills, scopeIds, PER_RUN, now) },
      ];
      for (let round = 0; round <= rounds; round++) {
        for (let k = 0; k < cases.length; k++) {
          const c = cases[(round + k) % cases.length];
          if (!c) continue;
          const before = pages;
          const { ms: took } = await timed(c.run);
          if (round === 0) continue;
          samples[c.name].push(took);
          if (c.name === 'baseline' || c.name === 'resolve') pagesOf[c.name] = pages - before;
        }
        if (round > 0) {
          log(
            `round ${round}: list all ${ms(samples.baseline.at(-1) ?? NaN)}, resolve ${ms(samples.resolve.at(-1) ?? NaN)}, ` +
              `choose ${ms(samples.choose.at(-1) ?? NaN)} (of which coverage + rotation ${ms(samples.pure.at(-1) ?? NaN)})`,
          );
        }
      }

      const baseline = { name: `list all ${total} resources`, value: median(samples.baseline) };
      const both = samples.resolve.map((r, i) => r + (samples.choose[i] ?? NaN));
      const kept = `median of ${rounds} interleaved rounds after one warm-up`;
      // The table rounds ratios to two decimals; these are far smaller over 50,000.
      const ratio = (value: number) => (value / baseline.value).toPrecision(3);
      log(
        `coverage: resolve ÷ list all ${ratio(median(samples.resolve))}, choose ÷ list all ` +
          `${ratio(median(samples.choose))}, resolve + choose ÷ list all ${ratio(median(both))}`,
      );
      const readBy =
        `real report files: ${DAYS} sealed reports read by a fresh DrillReader (every seal and the chain verified), ` +
        `then coverageByResource and nextToDrill`;
      return [
        compared(
          `resolve a selection over ${total} resources`,
          'ms',
          median(samples.resolve),
          baseline,
          undefined,
          `${kept}; resolveSelection through the client: ${pagesOf.resolve} pages, ${listedByResolve} listed ` +
            `(the service's filters), ${scope.length} taken`,
        ),
        compared(
          `choose the next ${PER_RUN} of ${scope.length}`,
          'ms',
          median(samples.choose),
          baseline,
          undefined,
          `${kept}; ${readBy}`,
        ),
        compared(
          `resolve + choose`,
          'ms',
          median(both),
          baseline,
          undefined,
          `${kept}; each round's resolve plus its choice`,
        ),
        {
          metric: 'choose: coverage + rotation alone',
          unit: 'ms',
          value: median(samples.pure),
          notes: `${kept}; over the ${DAYS} entries already read (${history.value.results} results), no file read`,
        },
        count(
          'baseline: resources listed',
          'resources',
          inventory.length,
          `${pagesOf.baseline} pages of ${PAGE_SIZE}, by name`,
        ),
        count('baseline: pages', 'pages', pagesOf.baseline),
        count('resolve: pages', 'pages', pagesOf.resolve),
        // The simulator filters and sorts its whole inventory for every page, whatever the filters keep.
        count('baseline: time per page', 'ms', baseline.value / pagesOf.baseline),
        count('resolve: time per page', 'ms', median(samples.resolve) / pagesOf.resolve),
        count('resolve: resources listed', 'resources', listedByResolve),
        count('scope size', 'resources', scope.length, `include ${selection.include?.length ?? 0}, exclude ${selection.exclude?.length ?? 0}`),
        count('M picked', 'resources', first.picks.length, reasons),
        count('reports read', 'reports', first.drills.length, readBy),
      ];
    } finally {
      child.kill();
      await closeHttpPools();
      await rm(root, { recursive: true, force: true });
    }
  },
};
