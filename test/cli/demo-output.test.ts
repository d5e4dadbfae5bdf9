// `runbooks demo` as a person sees it: its story on standard output, no JSON log line among it or on standard error
// (the worker's and the Temporal SDK's logs go to demo.log in its data directory), the commands it prints to verify its
// drill's and its recovery plan's seals work as printed, with the demo's own key, and the plan's lines say what it did.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runCliFromSource, spawnCliFromSource } from '../helpers/cli-from-source';

const { TEMPORAL_ADDRESS: _ignored, ...env } = process.env;

/** `runbooks demo` to its end, with no time limit of its own: a first run may fetch the Temporal CLI. */
function runDemo(): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawnCliFromSource(['demo'], env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (status) => done({ status, stdout, stderr })));
}

let demo: { status: number | null; stdout: string; stderr: string };
let dataDir: string | undefined;

beforeAll(async () => {
  demo = await runDemo();
  dataDir = /data directory (\S+)/.exec(demo.stdout)?.[1];
}, 300_000);

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** `runbooks evidence verify …` as the demo printed it after `marker`, run as printed. */
function verifyAsPrinted(marker: string) {
  const after = demo.stdout.slice(demo.stdout.indexOf(marker));
  const verify = /check with: runbooks (evidence verify \S+ --public-key \S+)/.exec(after)?.[1];
  expect(verify).toContain(`--public-key ${dataDir ?? ''}`);
  return runCliFromSource((verify ?? '').split(' '), env);
}

test('the demo prints no log line, and its verify command verifies its report', () => {
  expect({ status: demo.status, stderr: demo.stderr }).toEqual({ status: 0, stderr: '' });
  const logLines = demo.stdout.split('\n').filter((line) => line.trimStart().startsWith('{'));
  expect(logLines).toEqual([]);
  expect(dataDir).toBeDefined();
  expect(existsSync(join(dataDir ?? '', 'demo.log'))).toBe(true);

  const checked = verifyAsPrinted('== 2. Disaster-recovery drill');
  expect({ status: checked.status, stderr: checked.stderr }).toEqual({ status: 0, stderr: '' });
  expect(checked.stdout).toMatch(/^chain demo: ok, 1 report/m);
});

test('the demo runs a three-tier recovery plan, confirms its manual step, and prints its verdict, RTO and point', () => {
  const marker = '== 6. Recovery plan of three tiers, in drill mode';
  expect(demo.stdout).toContain(marker);
  const plan = demo.stdout.slice(demo.stdout.indexOf(marker)).split('\n== ')[0] ?? '';
  // Four fresh backups, then the plan in drill mode, its manual step confirmed by the demo as its approver.
  expect(plan.match(/^ {4}\S+: snapshot \S+ at \S+$/gm)).toHaveLength(4);
  expect(plan).toMatch(/^ {2}started plan-demo-shop-drill-\S+$/m);
  expect(plan).toMatch(/^ {4}confirmed step dns as oncall-lead \(the demo confirmed it without switching anything\)$/m);
  expect(plan).toMatch(/^ {2}done in \S+ s: PASS: 0 failed, 0 skipped, 7 passed of 7 steps$/m);
  expect(plan).toMatch(
    /^ {4}database passed in \d+ s, database-check passed in \d+ s, bucket passed in \d+ s, server-1 passed in \d+ s, server-2 passed in \d+ s, dns passed in \d+ s \(confirmed by oncall-lead\), shop-check passed in \d+ s$/m,
  );
  // The RTO runs to the last validation, after DNS: its critical path is the whole chain.
  expect(plan).toMatch(/^ {4}RTO \d+ s against a target of 15 min \(900 s\): met$/m);
  expect(plan).toMatch(/^ {4}critical path database → database-check → bucket → server-\d → dns → shop-check: /m);
  expect(plan).toMatch(
    /^ {4}common point \S+Z \(latest\): skew \d+ s between the oldest and the newest point chosen, within the bound of 1 h 00 min; RPO \d+ s$/m,
  );
  expect(plan).toMatch(/^ {4}wrote plan-reports\/plan-demo-shop--\S+\.md, \d+ bytes$/m);
  expect(demo.stdout).toMatch(/^Recovery plan\s+plan-demo-shop-drill-\S+\s+\S+ s\s+PASS: /m);

  const checked = verifyAsPrinted(marker);
  expect({ status: checked.status, stderr: checked.stderr }).toEqual({ status: 0, stderr: '' });
  expect(checked.stdout).toMatch(/^chain plan:demo-shop: ok, 1 report/m);
});
