// The Drills, Posture and Exports pages over an output folder written as the runs write it (sealed drill reports,
// posture lists, export files), through the console's routes over real HTTP: the drills with verdict, worst RPO and
// RTO and seal check; per resource RTO and RPO charts with one point per drill; resources never drilled or not within
// the period asked for; posture charts; exports with rows, bytes and sha256. A tampered report shows its seal failed.
// Drills that restored latest-clean points show each point, how far it is behind the newest, and the check it is clean
// as of; a resource none of whose points is clean shows the search's verdict.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { buildConsole } from '../../console/server';
import { ConsoleGuard } from '../../console/security';
import { HistoryIndex } from '../../history';
import { drillsBody } from '../../console/history-pages';
import { readDrillReport } from '../../history/drill-files';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { renderingOf, SEAL_SUFFIX } from '../../runtime/evidence-seal';
import type { CleanSearch, DrillResourceResult } from '../../runbooks/dr-drill/report';
import { measured, writeDrill, writePosture } from '../history/fixtures';

let root: string;
let app: FastifyInstance;
let base: string;
const CSV = 'id,name\n1,a\n2,b\n3,c\n';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'console-history-'));
  const key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  const now = Date.now();
  const day = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString();
  for (const [i, daysAgo] of [30, 20, 10].entries()) {
    await writeDrill(root, key, {
      runId: `run-${i}`,
      finishedAt: day(daysAgo),
      resources: [measured('db-1', 100 + i * 10, 600 * (i + 1), 'orders-db')],
      targets: { rpoSeconds: 1500, rtoSeconds: 3600 },
    });
  }
  // Drilled once, 200 days ago: not within 90 days, within 365.
  await writeDrill(root, key, {
    name: 'yearly',
    runId: 'run-old',
    finishedAt: day(200),
    resources: [measured('bucket-old', 50, 60, 'archive-bucket')],
  });
  const r = (id: string) => ({ id, type: 'VM', provider: 'AWS', env: 'PROD' });
  await writePosture(root, 'posture-1', day(40), [r('never-1'), r('never-2')], [r('db-1')]);
  await writePosture(root, 'posture-2', day(5), [r('never-1')], []);
  await mkdir(join(root, 'query-exports'), { recursive: true });
  await writeFile(join(root, 'query-exports', 'q-1.csv'), CSV);

  app = buildConsole({
    data: { runs: async () => [], approvals: async () => [], nudge: async () => undefined },
    guard: new ConsoleGuard({}),
    history: new HistoryIndex({ outputDir: root }),
    namespace: 'default',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app?.close();
  await rm(root, { recursive: true, force: true });
});

async function get(path: string): Promise<string> {
  const res = await request(`${base}${path}`);
  expect(res.statusCode).toBe(200);
  return res.body.text();
}

/** The rows of the page's first table, as the text of their cells. */
function rows(page: string): string[][] {
  const table = /<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...(row[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
      (c[1] ?? '')
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  );
}

test('Drills: every drill with its verdict, worst RPO and RTO against the targets, and its seal verified', async () => {
  const page = await get('/drills');
  const drills = rows(page);
  expect(drills).toHaveLength(4);
  // Newest first: the last nightly drill, then the two before it, then the yearly one.
  expect(drills.map((d) => [d[2], d[3], d[6]])).toEqual([
    ['PASS', '1/1', 'verified'],
    ['PASS', '1/1', 'verified'],
    ['PASS', '1/1', 'verified'],
    ['PASS', '1/1', 'verified'],
  ]);
  // The worst figures as the report's summary gives them, against the drill's targets.
  expect(drills[0]?.[4]).toMatch(/^[\d.]+ (s|min|h|d) \/ 25 min$/);
  expect(drills[0]?.[5]).toMatch(/^[\d.]+ (s|min|h|d) \/ 60 min$/);
  // No drill restored a latest-clean point: no column for one.
  expect(page).not.toContain('Clean point');
});

test('Drills: per resource RTO and RPO charts with one point per drill, and who was not drilled in the period', async () => {
  const page = await get('/drills');
  const charts = [...page.matchAll(/<svg[^>]*data-chart="(rto|rpo)-trend"[\s\S]*?<\/svg>/g)];
  // Two resources, two charts each.
  expect(charts.map((c) => c[1])).toEqual(['rto', 'rpo', 'rto', 'rpo']);
  const points = (svg: string) =>
    [...svg.matchAll(/<circle class="point"[^>]*data-value="([\d.]+)"/g)].map((m) => Number(m[1]));
  expect(points(charts[0]?.[0] ?? '')).toEqual([100, 110, 120]);
  expect(points(charts[1]?.[0] ?? '')).toEqual([600, 1200, 1800]);

  // After the charts: the known resources are the drills' two and the newest posture report's never-1.
  const section = (p: string) => p.slice(p.indexOf('<h2>Not drilled'));
  expect(page.indexOf('<h2>RTO and RPO')).toBeLessThan(page.indexOf('<h2>Not drilled'));
  const within90 = section(page);
  expect(within90).toMatch(
    /<p>2 of 3 known resources: 1 never drilled, 1 last drilled before <time [^>]+>[^<]+<\/time>\.<\/p>/,
  );
  expect(within90).toContain('archive-bucket');
  expect(within90).toContain('never-1-name');
  expect(within90).not.toContain('orders-db');
  const within365 = section(await get('/drills?period=365'));
  expect(within365).toContain('Not drilled within 365 days');
  expect(within365).toContain('<p>1 of 3 known resources: 1 never drilled, 0 last drilled before');
  expect(within365).not.toContain('archive-bucket');
  expect(within365).toContain('never-1-name');
});

test('Posture: unprotected and stale counts over the reports, as charts by provider, type and environment', async () => {
  const page = await get('/posture');
  const charts = [...page.matchAll(/<svg[^>]*data-chart="(posture-[a-z]+-[a-z]+)"/g)].map((m) => m[1]);
  expect(charts).toEqual([
    'posture-unprotected-total',
    'posture-unprotected-provider',
    'posture-unprotected-type',
    'posture-unprotected-environment',
    'posture-stale-total',
    'posture-stale-provider',
    'posture-stale-type',
    'posture-stale-environment',
  ]);
  const total = /<svg[^>]*data-chart="posture-unprotected-total"[\s\S]*?<\/svg>/.exec(page)?.[0] ?? '';
  expect([...total.matchAll(/data-value="(\d+)"/g)].map((m) => Number(m[1]))).toEqual([2, 1]);
});

test('Exports: each finished export with its rows, bytes and sha256', async () => {
  const [row] = rows(await get('/exports'));
  const sha = createHash('sha256')
    .update(await readFile(join(root, 'query-exports', 'q-1.csv')))
    .digest('hex');
  expect(row?.slice(0, 5)).toEqual(['query', 'q-1.csv', '3', String(Buffer.byteLength(CSV)), sha]);
});

test('a drill report changed after it was sealed shows its seal failed', async () => {
  const dir = join(root, 'drill-reports');
  const json =
    (await readdir(dir)).find(
      (f) => f.includes('run-old') && !f.endsWith(SEAL_SUFFIX) && renderingOf(f)?.extension === 'json',
    ) ?? '';
  const text = await readFile(join(dir, json), 'utf8');
  await writeFile(join(dir, json), text.replace('"archive-bucket"', '"archive-bucket-x"'));
  const yearly = rows(await get('/drills')).find((d) => d[0]?.includes('yearly'));
  expect(yearly?.[6]).toMatch(/^FAILED/);
});

test('a sealed report under a hidden name (a leading dot) is counted and shown failing, not left out', async () => {
  const outputDir = await mkdtemp(join(tmpdir(), 'console-hidden-'));
  try {
    const key = await loadOrCreateEvidenceKey(join(outputDir, 'evidence-signing-key.pem'));
    await writeDrill(outputDir, key, { runId: 'run-1', finishedAt: '2026-02-10T03:00:00.000Z' });
    await writeDrill(outputDir, key, { workflowId: '.hidden', runId: 'run-2', finishedAt: '2026-03-10T03:00:00.000Z' });
    const history = await new HistoryIndex({ outputDir }).read();
    const page = drillsBody({ history, periodDays: 90, lastN: 10, now: new Date('2026-03-11T00:00:00.000Z') }).text;
    expect(page).toContain('2 drill reports in the output folder');
    expect(page).toContain('1 under a hidden name');
    const table = rows(page);
    expect(table).toHaveLength(2);
    expect(table[1]?.[0]).toBe('.hidden--run-2 nightly');
    expect(table[1]?.[6]).toMatch(
      /^FAILED: hidden name .*badName \.hidden--run-2\.json: .* is hidden \(starts with a dot\)/,
    );
    // Its chain fails with it: the visible report of the drill is not shown verified.
    expect(table[0]?.[6]).toMatch(/^chain broken/);
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
});

/** A latest-clean search by a check whose name needs escaping, as the drill's report keeps it. */
const CHECK = { name: 'orders <intact> & "ok"', sha256: 'a'.repeat(64) };
const search = (verdict: string): CleanSearch => ({
  check: CHECK,
  verdict,
  candidates: 6,
  examined: [],
  queries: 4,
  nonMonotone: [],
});

/** Restored from a clean point `points` behind the newest, `seconds` of data before it. */
function cleanFrom(id: string, points: number, seconds: number): DrillResourceResult {
  const r = measured(id, 60, 3600 + seconds, `${id}-db`);
  const pointInTime = `2026-03-0${points + 1}T03:00:00.000Z`;
  const verdict = `clean as of ${CHECK.name}: snap-${id} (${pointInTime}), ${points} behind the newest`;
  return {
    ...r,
    recoveryPoint: {
      snapshotId: `snap-${id}`,
      pointInTime,
      selection: 'latest-clean',
      windowDays: 30,
      clean: { ...search(verdict), behindNewest: { points, seconds } },
    },
  };
}

/** None of the window clean: nothing restored, the search kept as `cleanSearch`. */
function noneClean(id: string): DrillResourceResult {
  const verdict = `none of the 6 recovery points in the window is clean as of ${CHECK.name}`;
  const { recoveryPoint: _point, rpoSeconds: _rpo, rtoSeconds: _rto, ...r } = measured(id, 0, 0, `<b>${id}</b>`);
  return { ...r, cleanSearch: search(verdict), rpoMet: false, verdict: 'FAIL', reasons: [verdict] };
}

test('Drills: a latest-clean drill shows each clean point, how far behind the newest, and the check it is clean as of', async () => {
  const outputDir = await mkdtemp(join(tmpdir(), 'console-clean-'));
  try {
    const key = await loadOrCreateEvidenceKey(join(outputDir, 'evidence-signing-key.pem'));
    await writeDrill(outputDir, key, { runId: 'run-1', finishedAt: '2026-03-08T03:00:00.000Z' });
    await writeDrill(outputDir, key, {
      name: 'one-clean',
      runId: 'run-2',
      finishedAt: '2026-03-09T03:00:00.000Z',
      resources: [cleanFrom('orders', 2, 172_800)],
    });
    await writeDrill(outputDir, key, {
      name: 'clean-databases',
      runId: 'run-3',
      finishedAt: '2026-03-10T03:00:00.000Z',
      resources: [
        cleanFrom('orders', 0, 0),
        cleanFrom('billing', 3, 10_800),
        noneClean('ledger'),
        measured('vm', 1, 1),
      ],
    });
    await writeDrill(outputDir, key, { workflowId: '.hidden', runId: 'run-4', finishedAt: '2026-03-10T04:00:00.000Z' });
    const history = await new HistoryIndex({ outputDir }).read();
    const page = drillsBody({ history, periodDays: 90, lastN: 10, now: new Date('2026-03-11T00:00:00.000Z') }).text;
    expect(page).toContain('<th scope="col">Clean point</th><th scope="col">Seal</th>');
    const table = rows(page);
    // Every row has the column, the hidden report's too.
    expect(table.map((r) => r.length)).toEqual([8, 8, 8, 8]);
    const [many, one, plain] = table;
    // The cells' text, tags as spaces (a point's <time> leaves one before the comma), entities read back.
    const text = (cell: string | undefined) =>
      (cell ?? '')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');

    // Worst distance first, then the resources with none clean, then each resource (the newest point said as such).
    expect(text(many?.[6])).toBe(
      'clean as of orders <intact> & "ok": 2 of 3, worst 3 points (3.0 h) behind the newest ' +
        '1 of 3 with no point clean as of orders <intact> & "ok" ' +
        'per resource ' +
        '<b>ledger</b>: none of the 6 recovery points in the window is clean as of orders <intact> & "ok" ' +
        'billing-db: snap-billing at 2026-03-04 03:00:00Z , clean as of orders <intact> & "ok", 3 points (3.0 h) behind the newest ' +
        'orders-db: snap-orders at 2026-03-01 03:00:00Z , clean as of orders <intact> & "ok", the newest point of the window',
    );
    expect(text(one?.[6])).toBe(
      'snap-orders at 2026-03-03 03:00:00Z , clean as of orders <intact> & "ok", 2 points (2.0 d) behind the newest',
    );
    expect(plain?.[6]).toBe('–');
    expect(plain?.[7]).toMatch(/^chain broken/);
    expect(table[3]?.[6]).toBe('–');

    // Never just "clean": every mention says what it is clean as of, and every value from a report is escaped.
    expect(`${many?.[6]} ${one?.[6]}`.match(/\bclean\b(?! as of)/g) ?? []).toEqual([]);
    expect(page).not.toContain('<intact>');
    expect(page).not.toContain('<b>ledger');
    expect(page).toContain('<span class="verdict-FAIL">&lt;b&gt;ledger&lt;/b&gt;: none of the 6');
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
});

test('a latest-clean search the history cannot read is left out of the page, not the drill', async () => {
  const outputDir = await mkdtemp(join(tmpdir(), 'console-clean-bad-'));
  try {
    const key = await loadOrCreateEvidenceKey(join(outputDir, 'evidence-signing-key.pem'));
    const file = await writeDrill(outputDir, key, {
      runId: 'run-1',
      finishedAt: '2026-03-10T03:00:00.000Z',
      resources: [cleanFrom('orders', 1, 3600)],
    });
    const path = join(outputDir, 'drill-reports', `${file}.json`);
    const json = JSON.parse(await readFile(path, 'utf8')) as { resources: { recoveryPoint: { clean: object } }[] };
    const [resource] = json.resources;
    if (resource) resource.recoveryPoint.clean = { check: 'orders intact' };
    await writeFile(path, JSON.stringify(json));
    const read = await readDrillReport(path, file);
    expect(read.ok && read.report.resources.map((r) => [r.resourceName, r.verdict, r.clean])).toEqual([
      ['orders-db', 'PASS', undefined],
    ]);
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
});
