import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FailureType } from '../../contracts';
import type { ExportCheckpoint } from '../../runtime/export-file';
import { claimExportFile, OWNER_SUFFIX } from './file-owner';

const RUN_1 = '3f2a1c9e-8d4b-4e1a-9c7f-0a1b2c3d4e5f';
const RUN_2 = '7b6c5d4e-3f2a-4b1c-8d9e-0f1e2d3c4b5a';
const CSV = 'id\r\n1\r\n2\r\n';

let dir: string;
let path: string;

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'file-owner-')), 'query-exports');
  path = join(dir, 'orders.csv');
});

afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

/** `claimExportFile` in an attempt of run `runId`, with that attempt's last checkpoint. */
function claimAs(runId: string, heartbeatDetails?: ExportCheckpoint): Promise<void> {
  const env = new MockActivityEnvironment(
    { workflowExecution: { workflowId: `query-export-${runId}`, runId }, heartbeatDetails },
    { logger: new DefaultLogger('ERROR') },
  );
  return env.run(() => claimExportFile(path));
}

async function refusal(claim: Promise<void>): Promise<ApplicationFailure> {
  const err = await claim.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ApplicationFailure)) throw new Error(`expected a refusal, got ${String(err)}`);
  expect(err.type).toBe(FailureType.Conflict);
  expect(err.nonRetryable).toBe(true);
  expect(err.message).toContain('query-exports/orders.csv');
  return err;
}

test('a free name is claimed for the run, in a marker beside the file, and its retries keep it', async () => {
  await claimAs(RUN_1);
  expect(JSON.parse(await readFile(`${path}${OWNER_SUFFIX}`, 'utf8'))).toEqual({
    workflowId: `query-export-${RUN_1}`,
    runId: RUN_1,
  });
  // A retry after a crash: the run's own partial or finished file is resumed or written again.
  await writeFile(path, CSV);
  await claimAs(RUN_1);
  expect(await readdir(dir)).toEqual(['orders.csv', `orders.csv${OWNER_SUFFIX}`]);
});

test('a name another run claimed is refused, naming the file and that run; its file stays as it was', async () => {
  await claimAs(RUN_1);
  await writeFile(path, CSV);
  const failure = await refusal(claimAs(RUN_2));
  expect(failure.message).toContain(RUN_1);
  expect(await readFile(path, 'utf8')).toBe(CSV);
  expect(JSON.parse(await readFile(`${path}${OWNER_SUFFIX}`, 'utf8'))).toMatchObject({ runId: RUN_1 });
});

test('a file with no marker (from before names were claimed) is refused, unless this attempt finished it', async () => {
  await mkdir(dir, { recursive: true });
  await writeFile(path, CSV);
  await refusal(claimAs(RUN_2));
  await refusal(claimAs(RUN_2, { nextToken: 'p2', rows: 1, bytes: 7, pages: 1 }));
  await refusal(claimAs(RUN_2, { nextToken: null, rows: 1, bytes: 7, pages: 1 }));
  expect(await readdir(dir)).toEqual(['orders.csv']);
  // The attempt that renamed it into place was lost before it answered: its last checkpoint covers the file whole.
  await claimAs(RUN_2, { nextToken: null, rows: 2, bytes: Buffer.byteLength(CSV), pages: 1 });
  expect(JSON.parse(await readFile(`${path}${OWNER_SUFFIX}`, 'utf8'))).toMatchObject({ runId: RUN_2 });
});

test("another run's export in flight under the name (its partial file) is refused", async () => {
  await mkdir(dir, { recursive: true });
  await writeFile(`${path}.${RUN_1}.partial`, 'id\r\n');
  // A longer name's partial is not this file's.
  await writeFile(join(dir, `orders.csv.old.${RUN_1}.partial`), 'id\r\n');
  const failure = await refusal(claimAs(RUN_2));
  expect(failure.message).toContain(`being written by run ${RUN_1}`);
  await rm(`${path}.${RUN_1}.partial`);
  await claimAs(RUN_2);
});

test('of runs claiming one name at once, exactly one gets it', async () => {
  const runs = Array.from({ length: 8 }, (_, i) => `${RUN_1.slice(0, -1)}${i}`);
  const outcomes = await Promise.allSettled(runs.map((run) => claimAs(run)));
  const granted = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [runs[i]] : []));
  expect(granted).toHaveLength(1);
  for (const o of outcomes) {
    if (o.status === 'rejected') expect((o.reason as ApplicationFailure).type).toBe(FailureType.Conflict);
  }
  expect(JSON.parse(await readFile(`${path}${OWNER_SUFFIX}`, 'utf8'))).toMatchObject({ runId: granted[0] });
  expect((await readdir(dir)).sort()).toEqual(['orders.csv.owner']);
});
