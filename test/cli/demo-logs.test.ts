// The demo's logs (the worker's and the Temporal SDK's, such as "Activity not found on completion") go to a file in
// its data directory, never among the lines it prints for people: a log line to a file destination reaches neither
// standard output nor standard error.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, PinoTemporalLogger } from '../../worker/logger';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'demo-logs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a file destination holds every line, as JSON; the terminal gets none', () => {
  const file = join(dir, 'demo.log');
  const writes = [jest.spyOn(process.stdout, 'write'), jest.spyOn(process.stderr, 'write')];
  try {
    const log = createLogger({ level: 'warn', destination: { file }, name: 'runbooks-demo' });
    new PinoTemporalLogger(log.child({ component: 'temporal' })).warn('Activity not found on completion', {
      taskQueue: 'runbooks',
    });
    log.info('below the level: left out');
    log.error({ token: 'not-for-the-log' }, 'the worker failed');
    for (const write of writes) expect(write).not.toHaveBeenCalled();
  } finally {
    for (const write of writes) write.mockRestore();
  }
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  const records = lines.map((line) => JSON.parse(line) as { msg: string; token?: string });
  expect(records.map((r) => r.msg)).toEqual(['Activity not found on completion', 'the worker failed']);
  // Redacted as on any other destination.
  expect(records[1]?.token).not.toBe('not-for-the-log');
});
