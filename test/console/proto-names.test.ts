// Counting by a name the service gives (environment, type, provider) is exact for any name, including those of
// Object.prototype: `__proto__`, `constructor`, `toString` count as themselves, and no page shows `function Object()`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConsole } from '../../console/server';
import { ConsoleGuard } from '../../console/security';
import { HistoryIndex, renderPostureChart } from '../../history';
import { countValue, emptyCounts, mergeCounts } from '../../runbooks/posture-report/report';
import { table, tableRow } from '../../runbooks/posture-report/html';
import { writePosture } from '../history/fixtures';
import { listen } from './listen';

const NAMES = ['__proto__', 'constructor', 'toString'];

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'console-proto-'));
  // Unprotected: environment __proto__ twice, constructor once, toString once; types likewise by name.
  const r = (id: string, name: string) => ({ id, type: name, provider: name, env: name });
  await writePosture(
    root,
    'posture-1',
    '2026-11-01T00:00:00.000Z',
    [r('a', '__proto__'), r('b', '__proto__'), r('c', 'constructor'), r('d', 'toString')],
    [r('e', 'constructor')],
  );
  // A second report without those names: looking them up there must read 0, not Object.prototype's members.
  await writePosture(root, 'posture-2', '2026-11-02T00:00:00.000Z', [r('f', 'PROD')], []);
});
afterAll(() => rm(root, { recursive: true, force: true }));

const own = (record: Record<string, number>) => Object.fromEntries(Object.entries(record));

test('the history counts each name exactly', async () => {
  const [first, second] = (await new HistoryIndex({ outputDir: root }).read()).posture;
  const expected = [
    ['__proto__', 2],
    ['constructor', 1],
    ['toString', 1],
  ];
  for (const field of ['byEnvironment', 'byType', 'byProvider'] as const) {
    expect(Object.entries(first?.unprotected[field] ?? {}).sort()).toEqual(expected);
  }
  expect(own(first?.stale.byEnvironment ?? {})).toEqual({ constructor: 1 });
  expect(first?.unprotected.total).toBe(4);
  expect(Object.entries(second?.unprotected.byEnvironment ?? {})).toEqual([['PROD', 1]]);
});

test('the posture charts and the console page show numbers, never a function', async () => {
  const history = await new HistoryIndex({ outputDir: root }).read();
  const chart = renderPostureChart(history.posture, 'unprotected', 'environment');
  expect(chart).not.toContain('function');
  expect(chart).not.toMatch(/NaN|\[object/);
  for (const name of NAMES) expect(chart).toContain(`data-series="${name}"`);
  const values = [...chart.matchAll(/data-series="([^"]*)" data-index="(\d+)" data-value="([^"]*)"/g)].map(
    (m) => `${m[1]}@${m[2]}=${m[3]}`,
  );
  expect(values).toEqual(
    expect.arrayContaining([
      '__proto__@0=2',
      '__proto__@1=0',
      'constructor@0=1',
      'constructor@1=0',
      'toString@0=1',
      'toString@1=0',
    ]),
  );

  const app = buildConsole({
    data: { runs: async () => [], approvals: async () => [], nudge: async () => undefined },
    guard: new ConsoleGuard({}),
    history: new HistoryIndex({ outputDir: root }),
    namespace: 'default',
  });
  const ask = await listen(app);
  for (const url of ['/posture', '/drills']) {
    const res = await ask({ url });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('function Object()');
    expect(res.body).not.toContain('[native code]');
  }
  await app.close();
});

test("the posture report's counts merge exactly under any name", () => {
  // JSON as the counts cross Temporal: `__proto__` is then an own key.
  const fromJson = (text: string) => JSON.parse(text) as Record<string, number>;
  const a = { ...emptyCounts(), environment: fromJson('{"__proto__": 5, "constructor": 2}') };
  const b = { ...emptyCounts(), environment: fromJson('{"__proto__": 3, "toString": 1, "constructor": 1}') };
  const merged = mergeCounts(mergeCounts(emptyCounts(), b), a);
  expect(Object.entries(merged.environment).sort()).toEqual([
    ['__proto__', 8],
    ['constructor', 3],
    ['toString', 1],
  ]);
  expect(JSON.stringify(merged)).not.toContain('function');
});

test('a posture page counts each resource under its own name', () => {
  const counts = emptyCounts();
  for (const name of [...NAMES, '__proto__']) countValue(counts, 'environment', name);
  expect(Object.entries(counts.environment).sort()).toEqual([
    ['__proto__', 2],
    ['constructor', 1],
    ['toString', 1],
  ]);
});

test("the posture report's count tables, as its page renders them, hold the numbers", () => {
  const counts = emptyCounts();
  for (const name of [...NAMES, '__proto__', 'constructor']) countValue(counts, 'environment', name);
  const merged = mergeCounts(emptyCounts(), JSON.parse(JSON.stringify(counts)) as typeof counts);
  // As activities.ts renders a dimension's table.
  const html = table(
    ['environment', 'resources'],
    Object.entries(merged.environment)
      .map(([value, n]) => tableRow([value, n]))
      .join(''),
    'no resources',
  );
  expect(html).toContain('<tr><td>__proto__</td><td>2</td></tr>');
  expect(html).toContain('<tr><td>constructor</td><td>2</td></tr>');
  expect(html).toContain('<tr><td>toString</td><td>1</td></tr>');
  expect(html).not.toContain('function');
});
