// A scheduled cost export's check for its file: a complete file under the name is "already present", except the one
// this run's own earlier attempt finished (its last checkpoint covers it whole).
import { MockActivityEnvironment } from '@temporalio/testing';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExportCheckpoint } from '../../runtime/export-file';
import { presentExport } from './written-once';

const TEXT = 'periodStart,costAmount\r\n2026-11-19T00:00:00.000Z,1.5\r\n2026-11-19T00:00:00.000Z,2\r\n';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'written-once-'));
  await writeFile(join(dir, 'cost-export-2026-11-19.csv'), TEXT);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const check = (name: string, heartbeatDetails?: ExportCheckpoint) =>
  new MockActivityEnvironment({ attempt: heartbeatDetails ? 2 : 1, heartbeatDetails }).run(() =>
    presentExport(join(dir, name)),
  );

test('no file: nothing present, the run writes it', async () => {
  expect(await check('cost-export-2026-11-20.csv')).toBeUndefined();
});

test('a file under the name is already present, with its hash, size and records', async () => {
  expect(await check('cost-export-2026-11-19.csv')).toEqual({
    path: join(dir, 'cost-export-2026-11-19.csv'),
    rows: 2,
    bytes: Buffer.byteLength(TEXT),
    sha256: createHash('sha256').update(TEXT).digest('hex'),
    pages: 0,
    resumed: false,
    alreadyPresent: true,
  });
});

test("the file this run's earlier attempt finished is its own, not already present", async () => {
  const own: ExportCheckpoint = { nextToken: null, rows: 2, bytes: Buffer.byteLength(TEXT), pages: 1 };
  const summary = await check('cost-export-2026-11-19.csv', own);
  expect(summary).toMatchObject({ rows: 2, pages: 1, resumed: true });
  expect(summary).not.toHaveProperty('alreadyPresent');
  // A checkpoint that does not cover the file whole is some other writer's: the file is present.
  expect(await check('cost-export-2026-11-19.csv', { ...own, bytes: 10 })).toMatchObject({ alreadyPresent: true });
});
