import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, open, readdir, readFile, rm, truncate, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  exportPages,
  type ExportCheckpoint,
  type ExportSummary,
  type PageOfRecords,
  type SyncPolicy,
} from './export-file';

const RUN_ID = 'run-1';
const HEADER = 'id,name\n';
// Five pages of varying sizes (one empty, some multi-byte text), linked by tokens.
const PAGES: { records: string[]; nextToken: string | null }[] = [
  { records: ['1,alpha\n', '2,beta\n'], nextToken: 't1' },
  { records: ['3,gamma\n'], nextToken: 't2' },
  { records: [], nextToken: 't3' },
  { records: ['4,délta\n', '5,épsilon\n', '6,ζeta\n'], nextToken: 't4' },
  { records: ['7,eta\n'], nextToken: null },
];

/** The service: serves PAGES by token, and records which tokens were asked for. */
function source(options: { failAt?: string } = {}) {
  const asked: (string | undefined)[] = [];
  const fetchPage = async (token: string | undefined): Promise<PageOfRecords> => {
    asked.push(token);
    if (options.failAt !== undefined && token === options.failAt) throw new Error('worker lost');
    const index = token === undefined ? 0 : Number(token.slice(1));
    const page = PAGES[index];
    if (page === undefined) throw new Error(`no page for token ${token}`);
    return index === 0 ? { ...page, header: HEADER } : page;
  };
  return { asked, fetchPage };
}

/** One activity attempt of this run, with the previous attempt's heartbeat details; returns what it heartbeated. */
async function attempt(
  path: string,
  fetchPage: (token: string | undefined) => Promise<PageOfRecords>,
  previous?: { attempt: number; details: ExportCheckpoint },
  sync: SyncPolicy = EVERY_PAGE,
  onBeat: (details: ExportCheckpoint) => void = () => undefined,
): Promise<{ result: Promise<ExportSummary>; beats: ExportCheckpoint[] }> {
  const env = new MockActivityEnvironment(
    {
      workflowExecution: { workflowId: 'cost-export-2026-11', runId: RUN_ID },
      attempt: previous?.attempt ?? 1,
      heartbeatDetails: previous?.details,
    },
    // The interrupted attempts fail on purpose.
    { logger: new DefaultLogger('ERROR') },
  );
  const beats: ExportCheckpoint[] = [];
  env.on('heartbeat', (details: ExportCheckpoint) => {
    beats.push(details);
    onBeat(details);
  });
  const result = env.run<[], ExportSummary, () => Promise<ExportSummary>>(() => exportPages(path, fetchPage, sync));
  // Settled here so that a failing attempt cannot be reported as unhandled before the caller awaits it.
  await result.catch(() => undefined);
  return { result, beats };
}

// Most tests sync and checkpoint after every page, so that each page boundary is a point a crash can resume from.
const EVERY_PAGE: SyncPolicy = { bytes: 0, ms: 0 };
// Never by size or time: only after the last page.
const AT_THE_END: SyncPolicy = { bytes: Infinity, ms: Infinity };

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let dir: string;
let expected: { content: Buffer; summary: ExportSummary };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'export-file-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

beforeAll(async () => {
  const base = await mkdtemp(join(tmpdir(), 'export-file-reference-'));
  try {
    const { result } = await attempt(join(base, 'costs.csv'), source().fetchPage);
    const summary = await result;
    expected = { content: await readFile(summary.path), summary };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test('an uninterrupted export writes every page once, checkpointing after each', async () => {
  const path = join(dir, 'costs.csv');
  const { asked, fetchPage } = source();
  const { result, beats } = await attempt(path, fetchPage);
  const summary = await result;

  const text = HEADER + PAGES.flatMap((page) => page.records).join('');
  const content = await readFile(path);
  expect(content.toString('utf8')).toBe(text);
  expect(summary).toEqual({
    path,
    rows: 7,
    bytes: Buffer.byteLength(text),
    sha256: sha256(content),
    pages: 5,
    resumed: false,
  });
  expect(asked).toEqual([undefined, 't1', 't2', 't3', 't4']);
  expect(beats.map((beat) => beat.nextToken)).toEqual(['t1', 't2', 't3', 't4', null]);
  expect(beats.at(-1)).toEqual({ nextToken: null, rows: 7, bytes: Buffer.byteLength(text), pages: 5 });
  // Only the finished file is left: the partial one was renamed.
  expect(await readdir(dir)).toEqual(['costs.csv']);
});

test('an interrupted export resumes from its last checkpoint and ends with the same file', async () => {
  const path = join(dir, 'costs.csv');
  const first = await attempt(path, source({ failAt: 't3' }).fetchPage);
  await expect(first.result).rejects.toThrow('worker lost');
  const checkpoint = first.beats.at(-1);
  expect(checkpoint).toEqual({ nextToken: 't3', rows: 3, bytes: expect.any(Number) as number, pages: 3 });
  if (checkpoint === undefined) throw new Error('no checkpoint');
  // The crash came after a page's write began and before its checkpoint: bytes past the checkpoint are garbage.
  const [partial] = await readdir(dir);
  expect(partial).toBe(`costs.csv.${RUN_ID}.partial`);
  await appendFile(join(dir, partial ?? ''), '4,torn wri');

  const { asked, fetchPage } = source();
  const second = await attempt(path, fetchPage, { attempt: 2, details: checkpoint });
  const summary = await second.result;

  expect(asked).toEqual(['t3', 't4']);
  expect(summary).toEqual({ ...expected.summary, path, resumed: true });
  const content = await readFile(path);
  expect(content.equals(expected.content)).toBe(true);
  expect(sha256(content)).toBe(expected.summary.sha256);
  // The retry's checkpoints carry on from the first attempt's counts.
  expect(second.beats).toEqual([
    { nextToken: 't4', rows: 6, bytes: expect.any(Number) as number, pages: 4 },
    { nextToken: null, rows: 7, bytes: expected.summary.bytes, pages: 5 },
  ]);
  expect(await readdir(dir)).toEqual(['costs.csv']);
});

test('a crash after the last page but before the rename finishes without fetching again', async () => {
  const path = join(dir, 'costs.csv');
  const complete = { nextToken: null, rows: 7, bytes: expected.summary.bytes, pages: 5 };
  await appendFile(join(dir, `costs.csv.${RUN_ID}.partial`), expected.content);

  const { asked, fetchPage } = source();
  const summary = await (await attempt(path, fetchPage, { attempt: 2, details: complete })).result;

  expect(asked).toEqual([]);
  expect(summary).toEqual({ ...expected.summary, path, resumed: true });
  expect((await readFile(path)).equals(expected.content)).toBe(true);
});

test('a checkpoint that the partial file does not cover starts the export over', async () => {
  const path = join(dir, 'costs.csv');
  const first = await attempt(path, source({ failAt: 't3' }).fetchPage);
  await expect(first.result).rejects.toThrow('worker lost');
  const checkpoint = first.beats.at(-1);
  if (checkpoint === undefined) throw new Error('no checkpoint');
  // The partial file lost its tail (say, a disk that did not keep it): it is shorter than the checkpoint says.
  await truncate(join(dir, `costs.csv.${RUN_ID}.partial`), checkpoint.bytes - 3);

  const { asked, fetchPage } = source();
  const summary = await (await attempt(path, fetchPage, { attempt: 2, details: checkpoint })).result;

  expect(asked).toEqual([undefined, 't1', 't2', 't3', 't4']);
  expect(summary).toEqual({ ...expected.summary, path, resumed: false });
  expect((await readFile(path)).equals(expected.content)).toBe(true);
});

test('a checkpoint without its partial file (another worker, a cleaned disk) starts over', async () => {
  const path = join(dir, 'costs.csv');
  const elsewhere = { nextToken: 't3', rows: 3, bytes: 40, pages: 3 };

  const { asked, fetchPage } = source();
  const summary = await (await attempt(path, fetchPage, { attempt: 2, details: elsewhere })).result;

  expect(asked[0]).toBeUndefined();
  expect(summary).toEqual({ ...expected.summary, path, resumed: false });
  expect((await readFile(path)).equals(expected.content)).toBe(true);
});

describe('syncing on checkpoint boundaries', () => {
  /** What reached the file (written, synced) and the checkpoints, in the order they happened. */
  async function traced(sync: SyncPolicy, fetchPage = source().fetchPage, previous?: Parameters<typeof attempt>[2]) {
    const probe: FileHandle = await open(join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    await rm(join(dir, 'probe'));
    const events: ({ kind: 'write'; end: number } | { kind: 'sync' } | { kind: 'beat'; bytes: number })[] = [];
    // The real methods, taken before the spies replace them.
    const realWrite = Reflect.get(proto, 'write') as (this: FileHandle, ...args: unknown[]) => Promise<never>;
    const realSync: (this: FileHandle) => Promise<void> = Reflect.get(proto, 'datasync');
    const write = jest.spyOn(proto, 'write').mockImplementation(function (this: FileHandle, ...args: unknown[]) {
      // exportPages writes (buffer, offset, length, position).
      const [, , length, position] = args as [Buffer, number, number, number];
      events.push({ kind: 'write', end: position + length });
      return realWrite.apply(this, args);
    });
    const datasync = jest.spyOn(proto, 'datasync').mockImplementation(function (this: FileHandle) {
      events.push({ kind: 'sync' });
      return realSync.call(this);
    });
    try {
      const run = await attempt(join(dir, 'costs.csv'), fetchPage, previous, sync, (beat) =>
        events.push({ kind: 'beat', bytes: beat.bytes }),
      );
      return { ...run, events };
    } finally {
      write.mockRestore();
      datasync.mockRestore();
    }
  }

  /** Every checkpoint covers only bytes a datasync that came after their write has made durable. */
  function expectCheckpointsBehindSyncedData(events: Awaited<ReturnType<typeof traced>>['events']) {
    let written = 0;
    let synced = 0;
    for (const e of events) {
      if (e.kind === 'write') written = Math.max(written, e.end);
      else if (e.kind === 'sync') synced = written;
      else expect(e.bytes).toBeLessThanOrEqual(synced);
    }
  }

  test('by default small exports sync and checkpoint once, after the last page, with every byte synced', async () => {
    const { result, beats, events } = await traced({ bytes: 8 * 1024 * 1024, ms: 60_000 });
    const summary = await result;
    expect(summary).toEqual({ ...expected.summary, path: join(dir, 'costs.csv') });
    expect(beats).toEqual([{ nextToken: null, rows: 7, bytes: expected.summary.bytes, pages: 5 }]);
    expect(events.filter((e) => e.kind === 'sync')).toHaveLength(1);
    expectCheckpointsBehindSyncedData(events);
  });

  test('a byte interval syncs every few pages, and no checkpoint points past synced data', async () => {
    const { result, beats, events } = await traced({ bytes: 20, ms: Infinity });
    await result;
    expect(beats.length).toBeGreaterThan(1);
    expect(beats.length).toBeLessThan(PAGES.length);
    expectCheckpointsBehindSyncedData(events);
  });

  test('a crash between checkpoints resumes from the last one: no row lost or written twice', async () => {
    const first = await traced({ bytes: 30, ms: Infinity }, source({ failAt: 't4' }).fetchPage);
    await expect(first.result).rejects.toThrow('worker lost');
    expectCheckpointsBehindSyncedData(first.events);
    const checkpoint = first.beats.at(-1);
    if (checkpoint === undefined) throw new Error('no checkpoint');
    // Pages were written after the checkpoint but never covered by one: the retry writes them again.
    expect(checkpoint.pages).toBeLessThan(4);
    const written = Math.max(...first.events.map((e) => (e.kind === 'write' ? e.end : 0)));
    expect(written).toBeGreaterThan(checkpoint.bytes);

    const { asked, fetchPage } = source();
    const second = await traced(AT_THE_END, fetchPage, { attempt: 2, details: checkpoint });
    const summary = await second.result;
    expect(asked[0]).toBe(checkpoint.nextToken);
    expect(summary).toEqual({ ...expected.summary, path: join(dir, 'costs.csv'), resumed: true });
    expect((await readFile(join(dir, 'costs.csv'))).equals(expected.content)).toBe(true);
  });

  test('pages given as bytes count their rows like pages of records', async () => {
    const asBytes = async (token: string | undefined): Promise<PageOfRecords> => {
      const page = await source().fetchPage(token);
      if (!('records' in page)) throw new Error('the source serves records');
      const bytes = Buffer.from(page.records.join(''), 'utf8');
      return { header: page.header, nextToken: page.nextToken, bytes, rows: page.records.length };
    };
    const summary = await (await attempt(join(dir, 'costs.csv'), asBytes)).result;
    expect(summary).toEqual({ ...expected.summary, path: join(dir, 'costs.csv') });
    expect((await readFile(join(dir, 'costs.csv'))).equals(expected.content)).toBe(true);
  });

  test('pages given as joined text count their rows like pages of records', async () => {
    const joined = async (token: string | undefined): Promise<PageOfRecords> => {
      const page = await source().fetchPage(token);
      if (!('records' in page)) throw new Error('the source serves records');
      return { header: page.header, nextToken: page.nextToken, text: page.records.join(''), rows: page.records.length };
    };
    const summary = await (await attempt(join(dir, 'costs.csv'), joined)).result;
    expect(summary).toEqual({ ...expected.summary, path: join(dir, 'costs.csv') });
  });
});

describe('tokens read ahead', () => {
  /** The source, with each page's next token announced before the page resolves: right, or wrong when asked. */
  function hinting(wrong = false) {
    const { asked, fetchPage } = source();
    const hinted: (string | null)[] = [];
    const fetchAhead = async (token: string | undefined, tokenAhead?: (next: string | null) => void) => {
      const page = await fetchPage(token);
      const hint = wrong && page.nextToken !== null ? 't0' : page.nextToken;
      hinted.push(hint);
      tokenAhead?.(hint);
      // The parsed page arrives a little after its hint.
      await new Promise((resolve) => setTimeout(resolve, 5));
      return page;
    };
    return { asked, hinted, fetchAhead };
  }

  test('a right hint starts the next page before this one is parsed; every page is fetched once', async () => {
    const { asked, fetchAhead } = hinting();
    const summary = await (await attempt(join(dir, 'costs.csv'), fetchAhead)).result;
    expect(summary).toEqual({ ...expected.summary, path: join(dir, 'costs.csv') });
    expect(asked).toEqual([undefined, 't1', 't2', 't3', 't4']);
    expect((await readFile(join(dir, 'costs.csv'))).equals(expected.content)).toBe(true);
  });

  test('a wrong hint is dropped with what it fetched: the file is the same', async () => {
    const { asked, fetchAhead } = hinting(true);
    const summary = await (await attempt(join(dir, 'costs.csv'), fetchAhead)).result;
    expect(summary).toEqual({ ...expected.summary, path: join(dir, 'costs.csv') });
    expect(asked.filter((t) => t !== 't0')).toEqual([undefined, 't1', 't2', 't3', 't4']);
    expect((await readFile(join(dir, 'costs.csv'))).equals(expected.content)).toBe(true);
  });
});
