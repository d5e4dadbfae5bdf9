// The Coverage page over drill reports written and sealed by the drill's own activity code, through the console's
// routes over real HTTP: the readiness scores equal `runbooks evidence score -o json` for the same folder, every
// resource with its last verified PASS and state, overdue first and named above the table; filters and sorts by query
// parameters, values the folder does not hold ignored; a hostile drill and resource name escaped; in the navigation.
// Over 5,000 resources: 100 rows a page, out-of-range pages falling back, links keeping the other parameters, and the
// overdue ones named whatever page is shown.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { coverageBody, withinOfQuery } from '../../console/coverage-page';
import { ConsoleGuard } from '../../console/security';
import { buildConsole } from '../../console/server';
import { HistoryIndex } from '../../history';
import type { CoverageOutput, EvidenceScoreOutput } from '../../operator/output-shapes';
import { loadOrCreateEvidenceKey } from '../../runtime/evidence-key';
import { runCliInProcess } from '../helpers/cli-in-process';
import { ago, failed, measured, writeDrill } from '../history/fixtures';
import { listen, type Client } from './listen';

const HOSTILE = 'evil<script>alert(1)</script>\u202e';
const data = { runs: async () => [], approvals: async () => [], nudge: async () => undefined };

let root: string;
let app: FastifyInstance;
let ask: Client;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'console-coverage-'));
  const key = await loadOrCreateEvidenceKey(join(root, 'evidence-signing-key.pem'));
  const output = join(root, 'output');
  // db-1 covered; db-2 overdue; db-3 never passed; bucket-1 covered by the weekly drill; a hostile drill's resource.
  await writeDrill(output, key, {
    name: 'nightly',
    runId: 'run-1',
    finishedAt: ago(120),
    resources: [measured('db-1', 40, 7200), measured('db-2', 50, 7200)],
  });
  await writeDrill(output, key, {
    name: 'nightly',
    runId: 'run-2',
    finishedAt: ago(30),
    resources: [measured('db-1', 30, 3600, 'orders'), { ...failed('db-3'), reasons: ['no'] }],
  });
  await writeDrill(output, key, {
    name: 'weekly',
    runId: 'run-3',
    finishedAt: ago(2),
    resources: [{ ...measured('bucket-1', 10, 600), resourceType: 'GCP_BUCKET' }],
  });
  await writeDrill(output, key, {
    name: HOSTILE,
    workflowId: 'drill-hostile',
    runId: 'run-4',
    finishedAt: ago(5),
    resources: [measured('vm-1', 20, 900, HOSTILE)],
  });
  app = buildConsole({
    data,
    guard: new ConsoleGuard({}),
    history: new HistoryIndex({ outputDir: output }),
    namespace: 'default',
  });
  ask = await listen(app);
});

afterAll(async () => {
  await app?.close();
  await rm(root, { recursive: true, force: true });
});

async function page(url = '/coverage'): Promise<string> {
  const res = await ask({ url });
  expect(res.statusCode).toBe(200);
  return res.body;
}

const text = (s: string) =>
  s
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The scores shown: scope ('' for the estate) to score. */
const scores = (html: string) =>
  new Map([...html.matchAll(/data-score-scope="([^"]*)" data-score="([^"]*)"/g)].map(([, s = '', v = '']) => [s, v]));

/** The resource rows, in the page's order: [resource ID, state]. */
const rows = (html: string) =>
  [...html.matchAll(/<tr data-resource="([^"]*)" data-state="([^"]*)">/g)].map(([, id, state]) => [id, state]);

test('the scores equal runbooks evidence score -o json for the same folder', async () => {
  const html = await page();
  const cli = await runCliInProcess(['evidence', 'score', '--dir', join(root, 'output'), '-o', 'json']);
  expect(cli.status).toBe(0);
  const doc = JSON.parse(cli.stdout) as EvidenceScoreOutput;
  const shown = scores(html);
  const unescape = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"');
  expect(new Map([...shown].map(([k, v]) => [unescape(k), v]))).toEqual(
    new Map([['', doc.estate.score.toFixed(1)], ...doc.drills.map((d) => [d.scope, d.score.toFixed(1)] as const)]),
  );
  expect(doc.drills).toHaveLength(3);
  expect(doc.estate.score).toBeGreaterThan(0);
});

test('every resource, overdue first as runbooks coverage orders them, the overdue one named above the table', async () => {
  const html = await page();
  const cli = await runCliInProcess(['coverage', '--dir', join(root, 'output'), '-o', 'json']);
  const doc = JSON.parse(cli.stdout) as CoverageOutput;
  expect(rows(html)).toEqual(doc.resources.map((r) => [r.resourceId, r.state]));
  expect(rows(html)[0]).toEqual(['db-2', 'overdue']);
  const notice = /<p class="notice error">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '';
  expect(text(notice)).toMatch(
    /^1 overdue \(no verified PASS since \S+ \S+ \): db-2 \. runbooks coverage lists them too\.$/,
  );
  expect(text(html)).toContain('5 in scope (every resource the reports name): 3 covered, 1 overdue');
  const db1 = /<tr data-resource="db-1"[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
  const cells = [...db1.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, c = '']) => text(c));
  expect(cells).toEqual([
    'db-1 orders',
    'AWS_RDS',
    'nightly',
    expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/),
    '30.0 d',
    '60 min / 2.0 d',
    '30 s / 60 min',
    expect.stringMatching(/^\d{4}-/),
    'covered',
  ]);
  const db3 = /<tr data-resource="db-3"[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
  expect(text(db3)).toContain('never');
  expect(text(db3)).toMatch(/now never-passed$/);
});

test('filters by drill, state and type; sorts by a column; ignores what the folder does not hold', async () => {
  expect(rows(await page('/coverage?drill=nightly'))).toEqual([
    ['db-2', 'overdue'],
    ['db-3', 'never-passed'],
    ['db-1', 'covered'],
  ]);
  expect(text(await page('/coverage?drill=nightly'))).toContain('runbooks coverage --drill nightly');
  expect(rows(await page('/coverage?state=covered')).map(([id]) => id)).toEqual(['db-1', 'vm-1', 'bucket-1']);
  expect(rows(await page('/coverage?type=GCP_BUCKET'))).toEqual([['bucket-1', 'covered']]);
  expect(rows(await page('/coverage?sort=resource')).map(([id]) => id)).toEqual([
    'bucket-1',
    'db-1',
    'db-2',
    'db-3',
    'vm-1',
  ]);
  expect(rows(await page('/coverage?sort=rto&order=desc')).map(([id]) => id)).toEqual([
    'db-3',
    'db-2',
    'db-1',
    'vm-1',
    'bucket-1',
  ]);
  const ignored = await page('/coverage?drill=nope&state=x&type=y&sort=z&within=forever');
  expect(rows(ignored)).toEqual(rows(await page()));
  expect(ignored).not.toContain('nope');
  expect(ignored).not.toContain('forever');
  // A shorter period: db-1's PASS 30 days ago no longer covers it; the longest overdue first.
  expect(rows(await page('/coverage?within=10d&drill=nightly'))).toEqual([
    ['db-2', 'overdue'],
    ['db-1', 'overdue'],
    ['db-3', 'never-passed'],
  ]);
});

test('a hostile drill and resource name is escaped and isolated; the page is in the navigation', async () => {
  const html = await page();
  expect(html).not.toContain('<script>');
  expect(html).toContain('evil&lt;script&gt;');
  expect(html).toContain('<a href="/coverage" aria-current="page">Coverage</a>');
  expect(await page('/drills')).toContain('<a href="/coverage">Coverage</a>');
});

test('?within= is a duration above 0, else 90 days', () => {
  expect(withinOfQuery('30d')).toEqual({ text: '30d', days: 30 });
  expect(withinOfQuery('1d12h')).toEqual({ text: '1d12h', days: 1.5 });
  expect(withinOfQuery(undefined)).toEqual({ text: '90d', days: 90 });
  expect(withinOfQuery('0')).toEqual({ text: '90d', days: 90 });
  expect(withinOfQuery(['30d'])).toEqual({ text: '90d', days: 90 });
});

test('an empty folder scores 0 and says so', () => {
  const empty = {
    drills: { drills: [], skipped: [], chains: [], keySource: 'folder', keyIds: [] },
  } as unknown as Parameters<typeof coverageBody>[0]['history'];
  expect(text(coverageBody({ history: empty, query: {} }).text)).toContain(
    'No drill report in the output folder yet: nothing is proven, and the estate scores 0.',
  );
});

describe('paging over an estate of 5,000 resources', () => {
  const ESTATE = 5000;
  const ids = Array.from({ length: ESTATE }, (_, i) => `res-${String(i + 1).padStart(4, '0')}`);
  // Every 400th resource has no PASS since the first drill, 120 days ago: 12 overdue, fewer than are named.
  const late = ids.filter((_, i) => (i + 1) % 400 === 0);
  let bigRoot: string;
  let bigOutput: string;
  let bigApp: FastifyInstance;
  let bigAsk: Client;
  /** `runbooks coverage -o json` for the folder: the resources in the page's default order. */
  let expected: string[][];

  beforeAll(async () => {
    bigRoot = await mkdtemp(join(tmpdir(), 'console-coverage-paging-'));
    const key = await loadOrCreateEvidenceKey(join(bigRoot, 'evidence-signing-key.pem'));
    bigOutput = join(bigRoot, 'output');
    const all = ids.map((id) => measured(id, 60, 3600));
    await writeDrill(bigOutput, key, { name: 'estate', runId: 'run-1', finishedAt: ago(120), resources: all });
    const recent = all.filter((r) => !late.includes(r.resourceId));
    await writeDrill(bigOutput, key, { name: 'estate', runId: 'run-2', finishedAt: ago(5), resources: recent });
    bigApp = buildConsole({
      data,
      guard: new ConsoleGuard({}),
      history: new HistoryIndex({ outputDir: bigOutput }),
      namespace: 'default',
    });
    bigAsk = await listen(bigApp);
    const cli = await runCliInProcess(['coverage', '--dir', bigOutput, '-o', 'json']);
    expect(cli.status).toBe(0);
    expected = (JSON.parse(cli.stdout) as CoverageOutput).resources.map((r) => [r.resourceId, r.state]);
  }, 120_000);

  afterAll(async () => {
    await bigApp?.close();
    await rm(bigRoot, { recursive: true, force: true });
  });

  async function bigPage(url: string): Promise<string> {
    const res = await bigAsk({ url });
    expect(res.statusCode).toBe(200);
    return res.body;
  }

  const nav = (html: string) => /<nav aria-label="Pages">[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';
  /** The links of a block, `&amp;` read back as `&`. */
  const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map(([, h = '']) => h.replace(/&amp;/g, '&'));
  const current = (html: string) => /<a [^>]*aria-current="page">(\d+)<\/a>/.exec(nav(html))?.[1];
  const notice = (html: string) => text(/<p class="notice error">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '');

  test('page 1 shows the first 100 rows and the navigation; page 50 the last; the scores are those of every page', async () => {
    expect(expected).toHaveLength(ESTATE);
    const first = await bigPage('/coverage');
    expect(rows(first)).toHaveLength(100);
    expect(rows(first)).toEqual(expected.slice(0, 100));
    expect(text(nav(first))).toBe('Rows 1–100 of 5000 1 2 3 … 50 Next');
    expect(current(first)).toBe('1');
    expect(hrefs(nav(first))).toEqual([
      '/coverage',
      '/coverage?page=2',
      '/coverage?page=3',
      '/coverage?page=50',
      '/coverage?page=2',
    ]);
    expect(nav(first)).toContain('<a href="/coverage?page=2" rel="next">Next</a>');

    const last = await bigPage('/coverage?page=50');
    expect(rows(last)).toEqual(expected.slice(4900));
    expect(current(last)).toBe('50');
    expect(text(nav(last))).toBe('Rows 4901–5000 of 5000 Previous 1 … 48 49 50');
    expect(nav(last)).toContain('<a href="/coverage?page=49" rel="prev">Previous</a>');

    const middle = await bigPage('/coverage?page=5');
    expect(rows(middle)).toEqual(expected.slice(400, 500));
    expect(text(nav(middle))).toBe('Rows 401–500 of 5000 Previous 1 2 3 4 5 6 7 … 50 Next');

    const cli = await runCliInProcess(['evidence', 'score', '--dir', bigOutput, '-o', 'json']);
    const doc = JSON.parse(cli.stdout) as EvidenceScoreOutput;
    const estateScores = new Map([
      ['', doc.estate.score.toFixed(1)],
      ...doc.drills.map((d) => [d.scope, d.score.toFixed(1)] as const),
    ]);
    expect(scores(first)).toEqual(estateScores);
    expect(scores(last)).toEqual(estateScores);
  });

  test('a page past the last shows the last, a page that is not a number the first', async () => {
    const last = rows(await bigPage('/coverage?page=50'));
    expect(rows(await bigPage('/coverage?page=999'))).toEqual(last);
    expect(current(await bigPage('/coverage?page=999'))).toBe('50');
    const first = rows(await bigPage('/coverage'));
    for (const page of ['abc', '0', '-3', '2.5', ''])
      expect(rows(await bigPage(`/coverage?page=${page}`))).toEqual(first);
    expect(current(await bigPage('/coverage?page=abc'))).toBe('1');
    expect(await bigPage('/coverage?page=abc')).not.toContain('abc');
  });

  test('every link keeps sort and state; a sort or a filter starts again at page 1', async () => {
    const html = await bigPage('/coverage?state=covered&sort=resource&order=desc&page=3');
    const covered = expected.filter(([, state]) => state === 'covered').map(([id]) => id);
    expect(covered).toHaveLength(ESTATE - late.length);
    expect(rows(html).map(([id]) => id)).toEqual([...covered].sort().reverse().slice(200, 300));
    expect(text(nav(html))).toContain(`Rows 201–300 of ${covered.length}`);
    const pageLinks = hrefs(nav(html));
    expect(pageLinks).toContain('/coverage?state=covered&sort=resource&order=desc&page=4');
    expect(pageLinks).toContain('/coverage?state=covered&sort=resource&order=desc');
    for (const link of pageLinks)
      expect(link).toMatch(/^\/coverage\?state=covered&sort=resource&order=desc(&page=\d+)?$/);

    const head = /<table class="coverage">\s*<thead>[\s\S]*?<\/thead>/.exec(html)?.[0] ?? '';
    expect(hrefs(head)).toContain('/coverage?state=covered&sort=resource');
    expect(hrefs(head)).toContain('/coverage?state=covered&sort=due');
    for (const link of hrefs(head)) expect(link).not.toContain('page=');

    const form = /<form method="get"[\s\S]*?<\/form>/.exec(html)?.[0] ?? '';
    expect(form).toContain('<input type="hidden" name="sort" value="resource">');
    expect(form).toContain('<input type="hidden" name="order" value="desc">');
    expect(form).not.toContain('name="page"');
  });

  test('the overdue resources are named whatever page is shown; past 20, the first 20 and a link to all', async () => {
    const overdue = expected.filter(([, state]) => state === 'overdue').map(([id]) => id);
    expect(overdue).toEqual(expect.arrayContaining(late));
    expect(overdue).toHaveLength(late.length);
    // Sorted by resource, page 2 holds res-0101 to res-0200: none of the overdue ones.
    for (const url of ['/coverage?page=50', '/coverage?sort=resource&page=2']) {
      const html = await bigPage(url);
      expect(rows(html).filter(([id]) => overdue.includes(id ?? ''))).toEqual([]);
      expect(notice(html)).toMatch(
        new RegExp(`^12 overdue \\(no verified PASS since \\S+ \\S+ \\): ${overdue.join(' , ')} \\. runbooks coverage`),
      );
    }

    // Within 4 days the drill of 5 days ago proves nothing: all 5,000 are overdue.
    const html = await bigPage('/coverage?within=4d&sort=resource&page=7');
    const all = (
      JSON.parse(
        (await runCliInProcess(['coverage', '--dir', bigOutput, '--within', '4d', '-o', 'json'])).stdout,
      ) as CoverageOutput
    ).resources.map((r) => r.resourceId);
    expect(all).toHaveLength(ESTATE);
    const overdueNotice = /<p class="notice error">[\s\S]*?<\/p>/.exec(html)?.[0] ?? '';
    expect(notice(html)).toMatch(
      new RegExp(
        `^5000 overdue \\(no verified PASS since \\S+ \\S+ \\): ${all.slice(0, 20).join(' , ')} and 4980 more: all 5000 overdue \\. runbooks coverage lists them too\\.$`,
      ),
    );
    expect(hrefs(overdueNotice)).toEqual(['/coverage?within=4d&state=overdue&sort=resource']);
  });
});
