// `runbooks coverage` and `runbooks evidence score` through the real parser, on drill reports written and sealed by the
// drill's own activity code with a generated key: a folder, an evidence pack and its unpacked folder.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readTarGz } from '../../history/tar';
import type { CoverageOutput, EvidenceScoreOutput } from '../../operator/output-shapes';
import type { DrillResourceResult } from '../../runbooks/dr-drill/report';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { keyHistoryPath } from '../../runtime/evidence-key-history';
import { runCliInProcess } from '../helpers/cli-in-process';
import { ago, failed, measured, writeDrill } from '../history/fixtures';

let root: string;
let key: EvidenceKey;
let keyFile: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'coverage-command-'));
  keyFile = join(root, 'data', 'evidence-signing-key.pem');
  key = await loadOrCreateEvidenceKey(keyFile);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const output = () => join(root, 'output');

let runs = 0;
function drill(name: string, days: number, resources: DrillResourceResult[]): Promise<string> {
  runs += 1;
  return writeDrill(output(), key, { name, runId: `run-${runs}`, finishedAt: ago(days), resources });
}

/** db-1 covered; db-2 overdue; db-3 never passed; bucket-1 covered by the weekly drill. */
async function history(): Promise<void> {
  await drill('nightly', 120, [measured('db-1', 40, 7200), measured('db-2', 50, 7200)]);
  await drill('nightly', 30, [measured('db-1', 30, 3600, 'orders'), { ...failed('db-3'), reasons: ['no'] }]);
  await drill('weekly', 2, [measured('bucket-1', 10, 600)]);
}

const coverage = (...args: string[]) => runCliInProcess(['coverage', '--dir', output(), ...args]);
const score = (...args: string[]) => runCliInProcess(['evidence', 'score', '--dir', output(), ...args]);

test('coverage: a table, overdue first, and the counts', async () => {
  await history();
  const result = await coverage('--public-key', keyHistoryPath(keyFile));
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const lines = result.stdout.split('\n');
  expect(lines[0]).toMatch(
    /^coverage within 90d \(since .*\) in .*drill-reports, for every resource the reports name:$/,
  );
  expect(lines[1]).toMatch(/^seals checked against the keys given: /);
  expect(lines[2]).toMatch(/^RESOURCE\s+TYPE\s+LAST PASS\s+AGE\s+RPO\s+RTO\s+NEXT DUE\s+STATE$/);
  expect(lines[3]).toMatch(/^db-2\s+AWS_RDS\s+\S+\s+120\.0 d\s+2\.0 h\s+50 s\s+\S+\s+overdue$/);
  expect(lines[4]).toMatch(/^db-3\s+AWS_RDS\s+never\s+-\s+-\s+-\s+now\s+never-passed$/);
  expect(lines[5]).toMatch(/^db-1 \(orders\)\s+AWS_RDS\s+\S+\s+30\.0 d\s+60 min\s+30 s\s+\S+\s+covered$/);
  expect(lines[6]).toMatch(/^bucket-1\s+AWS_RDS\s+\S+\s+2\.0 d\s+10 min\s+10 s\s+\S+\s+covered$/);
  expect(result.stdout).toContain(
    '4 in scope: 2 covered within 90d, 1 overdue, 0 never drilled, 1 never passed; 1 failed last',
  );
});

test('coverage -o json: the document alone, with --within and --drill', async () => {
  await history();
  const result = await coverage('--within', '60d', '--drill', 'nightly', '-o', 'json');
  expect(result.status).toBe(0);
  const doc = JSON.parse(result.stdout) as CoverageOutput;
  expect(doc).toMatchObject({
    within: '60d',
    withinDays: 60,
    drill: 'nightly',
    keySource: 'folder',
    counts: { inScope: 3, covered: 1, overdue: 1, neverDrilled: 0, neverPassed: 1, failedLast: 1 },
    skipped: [],
  });
  expect(doc.keyIds).toEqual([key.keyId]);
  expect(doc.resources.map((r) => [r.resourceId, r.state])).toEqual([
    ['db-2', 'overdue'],
    ['db-3', 'never-passed'],
    ['db-1', 'covered'],
  ]);
  expect(doc.resources[2]).toMatchObject({
    resourceName: 'orders',
    lastPass: {
      verdict: 'PASS',
      seal: 'verified',
      rtoSeconds: 30,
      rpoSeconds: 3600,
      reportFile: expect.stringMatching(/\.json$/) as string,
    },
    lastFailed: false,
  });
  expect(Math.round((doc.resources[2]?.lastPassAgeSeconds ?? 0) / 86_400)).toBe(30);
  expect(doc.resources[1]).toMatchObject({ lastFailed: true, lastResult: { verdict: 'FAIL' } });
});

test('coverage: a folder that is not there, a bad period, an unknown drill: typed errors and their exit codes', async () => {
  await history();
  const missing = await runCliInProcess(['coverage', '--dir', join(root, 'nowhere')]);
  expect(missing.status).toBe(5);
  expect(missing.stderr).toContain('does not exist');
  const within = await coverage('--within', 'ninety');
  expect(within.status).toBe(2);
  expect(within.stderr).toContain(
    "--within must be a period such as 90d, 12h or 1d12h (days, hours, minutes, seconds), not 'ninety'",
  );
  expect((await coverage('--within', '0')).status).toBe(2);
  const drillName = await coverage('--drill', 'hourly');
  expect(drillName.status).toBe(5);
  expect(drillName.stderr).toContain("no report of drill 'hourly' in");
  expect(drillName.stderr).toContain('drills: nightly, weekly');
  expect((await coverage('extra')).status).toBe(2);
});

test('evidence score: the estate and each drill, with the inputs and the formula', async () => {
  await history();
  const result = await score();
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toMatch(
    /^SCOPE\s+SCORE\s+RESOURCES\s+COVERAGE\s+PASS SHARE\s+RTO P95\/TARGET\s+RTO MARGIN\s+FRESHNESS$/m,
  );
  expect(result.stdout).toMatch(
    /^estate\s+\d+\.\d\s+4\s+0\.500 \(2\)\s+0\.500 \(2\)\s+none \(2 without\)\s+0\.000\s+0\.\d{3}$/m,
  );
  // bucket-1 passed 2 days ago in 10 s of its hour, from a point then 10 minutes old: full marks, to one decimal.
  expect(result.stdout).toMatch(/^weekly\s+100\.0\s+1\s+1\.000 \(1\)\s+1\.000 \(1\)\s+0\.003\s+1\.000\s+1\.000$/m);
  expect(result.stdout).toMatch(/^nightly\s+\d+\.\d\s+3\s+0\.333 \(1\)\s+0\.333 \(1\)\s+none \(2 without\)\s+0\.000/m);
  expect(result.stdout).toContain(
    'score = 40 × coverage + 30 × pass share + 20 × RTO margin + 10 × freshness (docs/operations/readiness.md)',
  );
});

test('evidence score -o json: recomputable from its inputs, and the same from a pack and from the pack unpacked', async () => {
  await history();
  const folder = JSON.parse((await score('-o', 'json', '--within', '90d')).stdout) as EvidenceScoreOutput;
  expect(folder.weights).toEqual({ coverage: 40, passShare: 30, rtoMargin: 20, freshness: 10 });
  expect(folder.drills.map((d) => d.scope)).toEqual(['nightly', 'weekly']);
  for (const s of [folder.estate, ...folder.drills]) {
    const w = folder.weights;
    const i = s.inputs;
    const points =
      w.coverage * i.coverage + w.passShare * i.passShare + w.rtoMargin * i.rtoMargin + w.freshness * i.freshness;
    expect(s.score).toBe(Math.round(points * 10) / 10);
  }
  expect(folder.estate.inputs).toMatchObject({ inScope: 4, covered: 2, latestPassed: 2, withoutRto: 2, rtoMargin: 0 });

  const pack = join(root, 'evidence.tar.gz');
  const from = ago(200).slice(0, 10);
  const to = ago(-1).slice(0, 10);
  const packed = await runCliInProcess([
    'evidence',
    'pack',
    '--from',
    from,
    '--to',
    to,
    '--dir',
    output(),
    '--out',
    pack,
  ]);
  expect(packed.status).toBe(0);
  const fromPack = await runCliInProcess(['evidence', 'score', '--dir', pack, '-o', 'json']);
  expect(fromPack.status).toBe(0);
  const packDoc = JSON.parse(fromPack.stdout) as EvidenceScoreOutput;
  expect(packDoc).toMatchObject({ keySource: 'pack', dir: pack, keyIds: [key.keyId] });
  expect(packDoc.estate.inputs).toEqual(
    expect.objectContaining({ inScope: 4, covered: 2, latestPassed: 2, coverage: folder.estate.inputs.coverage }),
  );

  const unpacked = join(root, 'unpacked');
  for (const e of readTarGz(await readFile(pack))) {
    await mkdir(dirname(join(unpacked, e.path)), { recursive: true });
    await writeFile(join(unpacked, e.path), e.data);
  }
  const fromFolder = JSON.parse(
    (await runCliInProcess(['evidence', 'score', '--dir', unpacked, '-o', 'json'])).stdout,
  ) as EvidenceScoreOutput;
  expect(fromFolder.keySource).toBe('pack');
  expect(fromFolder.estate.inputs).toMatchObject({ inScope: 4, covered: 2, latestPassed: 2 });
  expect(fromFolder.estate.score).toBe(packDoc.estate.score);
});

test('evidence score: an empty folder scores 0; a bad period exits 2', async () => {
  await mkdir(join(output(), 'drill-reports'), { recursive: true });
  const doc = JSON.parse((await score('-o', 'json')).stdout) as EvidenceScoreOutput;
  expect(doc.estate).toMatchObject({ scope: 'estate', score: 0, inputs: { inScope: 0 } });
  expect(doc.drills).toEqual([]);
  expect((await score('--within', '-3d')).status).toBe(2);
});
