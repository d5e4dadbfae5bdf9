// The history index on real files: drill reports written and sealed by the drill's activity, posture and export files.
import { appendFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { coverageOf, HistoryIndex, trendsOf } from '../../history';
import { writeReport } from '../../runbooks/dr-drill/activities';
import { csvRecord } from '../../runtime/csv';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { sha256 } from '../../runtime/evidence-seal';
import { v2Report } from '../helpers/drill-reports';
import { MockActivityEnvironment } from '@temporalio/testing';
import { measured, writeDrill, writePosture } from './fixtures';

let root: string;
let key: EvidenceKey;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'history-'));
  key = await loadOrCreateEvidenceKey(join(root, 'data', 'evidence-signing-key.pem'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const output = () => join(root, 'output');

test('drills: every report with its verdict, worst figures and targets, newest first, each seal verified', async () => {
  await writeDrill(output(), key, { runId: 'run-1', finishedAt: '2026-10-01T03:00:00.000Z' });
  await writeDrill(output(), key, { runId: 'run-2', finishedAt: '2026-11-01T03:00:00.000Z' });
  await writeDrill(output(), key, { name: 'weekly', runId: 'run-3', finishedAt: '2026-10-15T03:00:00.000Z' });
  const history = await new HistoryIndex({ outputDir: output(), publicKeys: [key.publicKey] }).read();
  const { drills } = history.drills;
  expect(drills.map((d) => [d.name, d.runId, d.seal.status])).toEqual([
    ['nightly', 'run-2', 'verified'],
    ['weekly', 'run-3', 'verified'],
    ['nightly', 'run-1', 'verified'],
  ]);
  expect(drills[0]).toMatchObject({
    workflowId: 'drill-nightly-2026-11-01',
    finishedAt: '2026-11-01T03:00:00.000Z',
    verdict: 'PASS',
    worstRpoSeconds: 432_000,
    worstRtoSeconds: 7_230,
    targets: { rpoSeconds: 172_800, rtoSeconds: 3_600 },
    resources: [{ resourceId: 'r-latest', rtoSeconds: 12, rpoSeconds: 126_000, verdict: 'PASS', rtoMet: true }],
  });
  // The digests its seal holds, as verified: the report's bytes, and each rendering and attestation.
  const dir = join(output(), 'drill-reports');
  for (const d of drills) {
    for (const extension of ['json', 'md', 'html', 'test-result.dsse.json', 'drill.dsse.json']) {
      expect(d.sealedFiles?.[extension]).toBe(sha256(await readFile(join(dir, `${d.file}.${extension}`))));
    }
  }
  expect(history.drills.keySource).toBe('given');
  expect(history.drills.chains.map((c) => [c.chain, c.reports.length, c.problems])).toEqual([
    ['nightly', 2, []],
    ['weekly', 1, []],
  ]);
});

test('a report of another schema version is skipped with its reason, not read as version 3', async () => {
  await writeDrill(output(), key, { runId: 'run-1', finishedAt: '2026-10-01T03:00:00.000Z' });
  await new MockActivityEnvironment().run(writeReport, { outputDir: output(), evidenceKey: key }, v2Report(), false);
  const history = await new HistoryIndex({ outputDir: output(), publicKeys: [key.publicKey] }).read();
  expect(history.drills.drills.map((d) => d.runId)).toEqual(['run-1']);
  expect(history.drills.skipped).toEqual([
    { file: 'drill-demo-2026-11-20--run-v2', reason: 'schemaVersion 2: only version 3 is read', name: 'demo' },
  ]);
});

test('a tampered report fails its seal check; the other reports of its chain show the chain failed', async () => {
  const first = await writeDrill(output(), key, { runId: 'run-1', finishedAt: '2026-10-01T03:00:00.000Z' });
  await writeDrill(output(), key, { runId: 'run-2', finishedAt: '2026-10-02T03:00:00.000Z' });
  await writeDrill(output(), key, { name: 'other', runId: 'run-3', finishedAt: '2026-10-03T03:00:00.000Z' });
  const index = new HistoryIndex({ outputDir: output(), publicKeys: [key.publicKey] });
  expect((await index.read()).drills.drills.every((d) => d.seal.status === 'verified')).toBe(true);

  const path = join(output(), 'drill-reports', `${first}.json`);
  await writeFile(path, (await readFile(path, 'utf8')).replace('"verdict": "PASS"', '"verdict": "FAIL"'));
  const after = await index.read();
  const byRun = new Map(after.drills.drills.map((d) => [d.runId, d.seal]));
  expect(byRun.get('run-1')?.status).toBe('failed');
  expect(byRun.get('run-1')?.problems[0]).toMatchObject({ kind: 'edited', report: first });
  expect(byRun.get('run-1')?.problems[0]?.detail).toContain(`${first}.json does not match its seal`);
  expect(byRun.get('run-2')?.status).toBe('chainFailed');
  expect(byRun.get('run-3')?.status).toBe('verified');
  // Only the changed chain was verified again.
  expect(index.lastVerifiedChains).toEqual(['nightly']);
});

test('read incrementally: an unchanged folder verifies nothing again; a new report verifies its own chain only', async () => {
  await writeDrill(output(), key, { runId: 'run-1', finishedAt: '2026-10-01T03:00:00.000Z' });
  await writeDrill(output(), key, { name: 'weekly', runId: 'run-2', finishedAt: '2026-10-02T03:00:00.000Z' });
  const index = new HistoryIndex({ outputDir: output() });
  await index.read();
  expect(index.lastVerifiedChains).toEqual(['nightly', 'weekly']);
  await index.read();
  expect(index.lastVerifiedChains).toEqual([]);
  // Another worker writes a report to the shared folder.
  await writeDrill(output(), key, { name: 'weekly', runId: 'run-3', finishedAt: '2026-10-09T03:00:00.000Z' });
  const history = await index.read();
  expect(index.lastVerifiedChains).toEqual(['weekly']);
  expect(history.drills.drills.map((d) => [d.runId, d.seal.status])).toEqual([
    ['run-3', 'verified'],
    ['run-2', 'verified'],
    ['run-1', 'verified'],
  ]);
  // Without keys given, the keys beside the reports are used, and the index says so.
  expect(history.drills.keySource).toBe('folder');
  expect(history.drills.keyIds).toEqual([key.keyId]);
});

test('trends: per resource RTO and RPO over its last N drills against the targets, and who was not drilled', async () => {
  const days = ['2026-06-01', '2026-07-01', '2026-08-01', '2026-09-01'];
  for (const [i, day] of days.entries()) {
    await writeDrill(output(), key, {
      runId: `run-${i}`,
      finishedAt: `${day}T03:00:00.000Z`,
      resources: [measured('db-1', 100 + i * 10, 3600 * (i + 1)), ...(i === 0 ? [measured('db-old', 50, 60)] : [])],
      targets: { rpoSeconds: 7200, rtoSeconds: i < 2 ? 600 : 120 },
    });
  }
  await writePosture(
    output(),
    'posture-report-2026-09-02-abc',
    '2026-09-02T00:00:00.000Z',
    [{ id: 'never-1', type: 'AWS_EC2', provider: 'AWS', env: 'PROD' }],
    [{ id: 'db-1', type: 'AWS_RDS', provider: 'AWS', env: 'PROD' }],
  );
  const history = await new HistoryIndex({ outputDir: output(), publicKeys: [key.publicKey] }).read();
  const trends = trendsOf(history, 3);
  expect(trends.map((t) => [t.resourceId, t.drillCount, t.lastDrilledAt])).toEqual([
    ['db-1', 4, '2026-09-01T03:00:00.000Z'],
    ['db-old', 1, '2026-06-01T03:00:00.000Z'],
  ]);
  expect(
    trends[0]?.points.map((p) => [p.finishedAt.slice(0, 10), p.rtoSeconds, p.rtoTargetSeconds, p.rpoSeconds]),
  ).toEqual([
    ['2026-07-01', 110, 600, 7200],
    ['2026-08-01', 120, 120, 10800],
    ['2026-09-01', 130, 120, 14400],
  ]);

  const cover = coverageOf(history, { now: new Date('2026-09-15T00:00:00.000Z'), periodDays: 90 });
  expect(cover.knownFrom).toBe('posture-lists');
  expect(cover.neverDrilled.map((r) => r.resourceId)).toEqual(['never-1']);
  expect(cover.notWithinPeriod.map((t) => t.resourceId)).toEqual(['db-old']);
  expect(cover.drilledWithinPeriod).toBe(1);
  const withInventory = coverageOf(history, {
    now: new Date('2026-09-15T00:00:00.000Z'),
    inventory: [{ resourceId: 'db-1' }, { resourceId: 'quiet-1' }],
  });
  expect(withInventory).toMatchObject({ knownFrom: 'inventory', neverDrilled: [{ resourceId: 'quiet-1' }] });
});

test('posture: unprotected and stale counts per report by provider, type and environment, oldest first', async () => {
  const r = (id: string, type: string, provider: string, env: string) => ({ id, type, provider, env });
  await writePosture(output(), 'posture-b', '2026-11-02T00:00:00.000Z', [r('1', 'VM', 'AWS', 'PROD')], []);
  await writePosture(
    output(),
    'posture-a',
    '2026-11-01T00:00:00.000Z',
    [r('1', 'VM', 'AWS', 'PROD'), r('2', 'DB', 'GCP', 'DEV'), r('3, "quoted"\nname', 'DB', 'GCP', 'DEV')],
    [r('2', 'DB', 'GCP', 'DEV')],
  );
  // A report still being written (its lists not renamed yet) is left out.
  await mkdir(join(output(), 'posture-reports'), { recursive: true });
  await writeFile(join(output(), 'posture-reports', 'posture-c.html'), '<html></html>');
  const { posture } = await new HistoryIndex({ outputDir: output() }).read();
  expect(posture.map((p) => [p.base, p.asOf, p.resources, p.unprotected.total, p.stale.total])).toEqual([
    ['posture-a', '2026-11-01T00:00:00.000Z', 100, 3, 1],
    ['posture-b', '2026-11-02T00:00:00.000Z', 100, 1, 0],
  ]);
  expect(posture[0]?.unprotected).toEqual({
    total: 3,
    byProvider: { AWS: 1, GCP: 2 },
    byType: { VM: 1, DB: 2 },
    byEnvironment: { PROD: 1, DEV: 2 },
  });
  expect(posture[0]?.listed.map((l) => l.resourceId)).toContain('3, "quoted"\nname');
});

test('exports: each finished query and cost export with its rows, bytes and sha256; partial files left out', async () => {
  const query = join(output(), 'query-exports');
  const cost = join(output(), 'cost-exports');
  await mkdir(query, { recursive: true });
  await mkdir(cost, { recursive: true });
  const text =
    csvRecord(['id', 'note']) + csvRecord(['1', 'a,b']) + csvRecord(['2', 'two\nlines']) + csvRecord(['3', '"q"']);
  await writeFile(join(query, 'q.csv'), text);
  await writeFile(join(query, 'q2.csv.run-1.partial'), text);
  await writeFile(join(cost, 'cost-export-2026-11-01.csv'), csvRecord(['periodStart']));
  const index = new HistoryIndex({ outputDir: output() });
  const { exports } = await index.read();
  const q = exports.find((e) => e.file === 'q.csv');
  expect(q).toMatchObject({ kind: 'query', rows: 3, bytes: Buffer.byteLength(text), sha256: sha256(text) });
  expect(exports.map((e) => e.file).sort()).toEqual(['cost-export-2026-11-01.csv', 'q.csv']);
  expect(exports.find((e) => e.kind === 'cost')?.rows).toBe(0);
  // A file rewritten is counted again.
  await appendFile(join(query, 'q.csv'), csvRecord(['4', 'd']));
  expect((await index.read()).exports.find((e) => e.file === 'q.csv')?.rows).toBe(4);
});

test('a shared folder mid-write: a report not sealed yet shows unsealed, then verified once its seal lands', async () => {
  const base = await writeDrill(output(), key, { runId: 'run-1', finishedAt: '2026-10-01T03:00:00.000Z' });
  const seal = join(output(), 'drill-reports', `${base}.seal.json`);
  const held = join(root, 'held.seal.json');
  await rename(seal, held);
  // Another worker's report being written: not JSON yet.
  const other = join(output(), 'drill-reports', 'drill-x--run-9.json');
  await writeFile(other, '{"schemaVersion": 3, "na');
  const index = new HistoryIndex({ outputDir: output(), publicKeys: [key.publicKey] });
  const before = await index.read();
  expect(before.drills.drills.map((d) => [d.seal.status, d.sealedFiles])).toEqual([['unsealed', undefined]]);
  expect(before.drills.skipped).toEqual([{ file: 'drill-x--run-9', reason: 'is not JSON' }]);

  await rename(held, seal);
  await rm(other);
  const after = await index.read();
  expect(after.drills.drills.map((d) => d.seal.status)).toEqual(['verified']);
  expect(after.drills.drills[0]?.sealedFiles?.json).toBe(
    sha256(await readFile(join(output(), 'drill-reports', `${base}.json`))),
  );
  expect(after.drills.skipped).toEqual([]);
  expect(index.lastVerifiedChains).toEqual(['nightly']);
});
