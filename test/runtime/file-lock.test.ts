import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { withLockFile, type LockTiming } from '../../runtime/file-lock';

// Separate processes run the built lock (npm run build), as the workers sharing a credentials file do.
const BUILT_LOCK = resolve(__dirname, '../../dist/runtime/file-lock.js');
// Short periods keep the tests quick (the defaults are 5 s and 30 s), with staleness at 80 renewals: a machine busy
// enough to stall this process for 400 ms (16 renewals) has made a holder look stale here.
const TIMING: LockTiming = { renewMs: 25, staleMs: 2_000, pollMs: 5 };

/**
 * One contender, as a process. `race`: for each round, waits for `go-<round>`, tries the round's lock once (no wait),
 * and writes `decided-<round>-<me>`; a winner logs its entry and exit, and stays inside until every contender has
 * decided, so that no one can come in after it. `challenge`: tries `lock` for `waitMs`, logging an entry if it wins.
 */
const CONTENDER = `
const fs = require('node:fs');
const path = require('node:path');
const { withLockFile } = require(${JSON.stringify(BUILT_LOCK)});
const [mode, dir, me, rounds, contenders, waitMs] = process.argv.slice(1);
const timing = ${JSON.stringify(TIMING)};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const until = async (test) => { while (!test()) await sleep(2); };
const decided = (round) => fs.readdirSync(dir).filter((f) => f.startsWith('decided-' + round + '-')).length;
const busy = () => Object.assign(new Error('busy'), { busy: true });
async function race() {
  for (let round = 0; round < Number(rounds); round++) {
    await until(() => fs.existsSync(path.join(dir, 'go-' + round)));
    const log = path.join(dir, 'log-' + round);
    let outcome = 'won';
    try {
      await withLockFile(path.join(dir, 'state-' + round), 0, async () => {
        fs.appendFileSync(log, 'enter ' + me + '\\n');
        fs.writeFileSync(path.join(dir, 'decided-' + round + '-' + me), 'won');
        await until(() => decided(round) === Number(contenders));
        fs.appendFileSync(log, 'exit ' + me + '\\n');
      }, busy, timing);
    } catch (err) {
      if (!err.busy) throw err;
      outcome = 'lost';
      fs.writeFileSync(path.join(dir, 'decided-' + round + '-' + me), outcome);
    }
  }
}
async function challenge() {
  try {
    await withLockFile(path.join(dir, 'state'), Number(waitMs), async () => {
      fs.appendFileSync(path.join(dir, 'log'), 'enter ' + me + '\\n');
    }, busy, timing);
  } catch (err) {
    if (!err.busy) throw err;
    fs.appendFileSync(path.join(dir, 'log'), 'busy ' + me + '\\n');
  }
}
(mode === 'race' ? race() : challenge()).catch((err) => { console.error(err); process.exit(1); });
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(test: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await test())) await sleep(5);
}

function start(args: string[]): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, ['-e', CONTENDER, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, exited, stderr: () => stderr };
}

let dir: string;
let deadPid: number;
beforeAll(async () => {
  if (!existsSync(BUILT_LOCK)) throw new Error(`${BUILT_LOCK} is missing: run npm run build`);
  dir = await mkdtemp(join(tmpdir(), 'file-lock-'));
  deadPid = spawnSync('true').pid ?? 999_999;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test('8 processes racing one stale lock: exactly one is inside, in each of 50 rounds', async () => {
  const rounds = 50;
  const contenders = 8;
  const race = join(dir, 'race');
  await mkdir(race);
  // Half the stale locks were left by a dead process on this host (fresh in age), half were not renewed for long by a
  // holder elsewhere (its pid says nothing here).
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (let round = 0; round < rounds; round++) {
    const lock = join(race, `state-${round}.lock`);
    if (round % 2 === 0) {
      await writeFile(lock, `${JSON.stringify({ pid: deadPid, host: hostname(), token: `dead-${round}` })}\n`);
    } else {
      await writeFile(lock, `${JSON.stringify({ pid: 1, host: 'elsewhere', token: `elsewhere-${round}` })}\n`);
      await utimes(lock, hourAgo, hourAgo);
    }
  }
  const processes = Array.from({ length: contenders }, (_, me) =>
    start(['race', race, String(me), String(rounds), String(contenders)]),
  );
  try {
    for (let round = 0; round < rounds; round++) {
      await writeFile(join(race, `go-${round}`), '');
      // The round is over when everyone decided and the winner (or winners) left.
      await until(async () => {
        const names = await readdir(race);
        if (names.filter((n) => n.startsWith(`decided-${round}-`)).length < contenders) return false;
        const log = await readFile(join(race, `log-${round}`), 'utf8').catch(() => '');
        const lines = log.split('\n').filter(Boolean);
        return lines.filter((l) => l.startsWith('exit')).length === lines.filter((l) => l.startsWith('enter')).length;
      });
    }
    const codes = await Promise.all(processes.map((p) => p.exited));
    expect({ codes, stderr: processes.map((p) => p.stderr()).join('') }).toEqual({
      codes: processes.map(() => 0),
      stderr: '',
    });
  } finally {
    for (const p of processes) p.child.kill('SIGKILL');
  }

  const outcomes = [];
  for (let round = 0; round < rounds; round++) {
    const log = (await readFile(join(race, `log-${round}`), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    const decisions = await Promise.all(
      Array.from({ length: contenders }, (_, me) => readFile(join(race, `decided-${round}-${me}`), 'utf8')),
    );
    const winner = decisions.indexOf('won');
    outcomes.push({ round, log, winners: decisions.filter((d) => d === 'won').length });
    // One entry and its own exit, nobody in between: no overlap.
    expect(outcomes.at(-1)).toEqual({ round, log: [`enter ${winner}`, `exit ${winner}`], winners: 1 });
  }
  // No lock or claim file is left behind by a round.
  const leftovers = (await readdir(race)).filter((n) => n.includes('.lock'));
  expect(leftovers).toEqual([]);
});

test('a holder renews its lock through a rotation longer than the staleness period: nobody takes it over', async () => {
  const slow = join(dir, 'slow');
  await mkdir(slow);
  const log = join(slow, 'log');
  const challengers = 4;
  const outcome = await withLockFile(
    join(slow, 'state'),
    0,
    async (held) => {
      await writeFile(log, 'enter holder\n', { flag: 'a' });
      // Each challenger keeps trying for two staleness periods, while the holder waits on its "service call".
      const processes = Array.from({ length: challengers }, (_, me) =>
        start(['challenge', slow, String(me), '0', '0', String(TIMING.staleMs * 2)]),
      );
      const codes = await Promise.all(processes.map((p) => p.exited));
      expect(codes).toEqual(processes.map(() => 0));
      await writeFile(log, 'exit holder\n', { flag: 'a' });
      return held.aborted ? 'lost' : 'held';
    },
    () => new Error('busy'),
    TIMING,
  );
  expect(outcome).toBe('held');
  const lines = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  expect(lines[0]).toBe('enter holder');
  expect(lines.at(-1)).toBe('exit holder');
  expect(lines.slice(1, -1).sort()).toEqual(Array.from({ length: challengers }, (_, me) => `busy ${me}`));
  // Released: the lock file is gone, and the next taker gets in at once.
  await expect(withLockFile(join(slow, 'state'), 0, () => Promise.resolve('next'), Error, TIMING)).resolves.toBe(
    'next',
  );
});

test('a release removes only its own lock: a successor that took over keeps its lock', async () => {
  const path = join(dir, 'successor');
  const lock = `${path}.lock`;
  const successor = `${JSON.stringify({ pid: process.pid, host: hostname(), token: 'successor' })}\n`;
  const noticed = await withLockFile(
    path,
    0,
    async (held) => {
      // As a takeover would: the holder's lock is replaced by another while it still runs.
      await rm(lock);
      await writeFile(lock, successor);
      await until(() => held.aborted);
      return held.reason instanceof Error ? held.reason.message : 'aborted without a reason';
    },
    () => new Error('busy'),
    TIMING,
  );
  expect(noticed).toBe(`${lock} was taken over`);
  expect(await readFile(lock, 'utf8')).toBe(successor);
});
