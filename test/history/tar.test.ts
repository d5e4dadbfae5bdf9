// The pack's tar writer and reader: a round trip, long paths (pax), and the system's tar reading what it writes.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { readTarGz, TarFormatError, writeTarGz } from '../../history/tar';

const long = `drill-reports/${'drill-very-long-workflow-id-'.repeat(6)}--0b1c2d3e-0000-4000-8000-000000000001.seal.json`;
const entries = [
  { path: 'manifest.json', data: Buffer.from('{"a":1}\n') },
  { path: long, data: Buffer.alloc(1500, 'x') },
  { path: 'empty.txt', data: Buffer.alloc(0) },
];

test('what it writes it reads back, paths over 100 bytes included', () => {
  expect(long.length).toBeGreaterThan(100);
  expect(readTarGz(writeTarGz(entries, new Date('2026-01-01T00:00:00Z')))).toEqual(entries);
});

test('the system tar extracts it to the same files', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tar-'));
  try {
    await writeFile(join(dir, 'pack.tar.gz'), writeTarGz(entries, new Date()));
    const tar = spawnSync('tar', ['-xzf', 'pack.tar.gz'], { cwd: dir, encoding: 'utf8' });
    expect(tar.stderr).toBe('');
    expect(tar.status).toBe(0);
    for (const e of entries) expect(await readFile(join(dir, e.path))).toEqual(e.data);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a file that is not a gzipped tar, or a header changed, is refused', () => {
  expect(() => readTarGz(Buffer.from('not a pack'))).toThrow(TarFormatError);
  const tar = gunzipSync(writeTarGz(entries, new Date()));
  tar[0] = 'N'.charCodeAt(0);
  expect(() => readTarGz(gzipSync(tar))).toThrow(/wrong checksum/);
});
