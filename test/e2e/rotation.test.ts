// rotateCredentials under lost answers, failed writes and a crash, and with two workers sharing one credentials file.
import { randomUUID } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import type { WorkflowHandle } from '@temporalio/client';
import { writeCredentialsFile, type StoredCredentials } from '../../runtime/credentials-file';
import { costExport, rotateCredentials } from '../../runbooks/workflows';
import type { ClientCredentials } from '../../simulator/control-client';
import { scanForSecrets, setupE2E, startWorker, teardownE2E, type E2E, type RunningWorker } from './helpers';

let fx: E2E;
/** Every secret the simulator issued in this file, in order: each rotation issues exactly one. */
const issued: string[] = [];

beforeAll(async () => {
  fx = await setupE2E();
  const newSecret = fx.sim.ctx.newSecret.bind(fx.sim.ctx);
  fx.sim.ctx.newSecret = () => {
    const secret = newSecret();
    issued.push(secret);
    // Orphaned and retired secrets are scanned for at the end as well.
    fx.retiredSecrets.push(secret);
    return secret;
  };
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

/** New API credentials on the simulator, in a 0600 file of their own. */
async function credentialsFile(name: string): Promise<{ path: string; old: ClientCredentials }> {
  const old = await fx.control.credentials();
  const path = join(fx.outputDir, `${name}-${randomUUID()}.json`);
  await writeFile(path, JSON.stringify(old), { mode: 0o600 });
  return { path, old };
}

async function stored(path: string): Promise<StoredCredentials> {
  return JSON.parse(await readFile(path, 'utf8')) as StoredCredentials;
}

async function issueToken(credentials: ClientCredentials): Promise<{ status: number; token?: string }> {
  const res = await request(`${fx.sim.baseUrl}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  const body = (await res.body.json()) as { access_token?: string };
  return { status: res.statusCode, token: body.access_token };
}

const tokenStatus = async (clientId: string, clientSecret: string) =>
  (await issueToken({ clientId, clientSecret })).status;

function rotate(taskQueue: string): Promise<WorkflowHandle<typeof rotateCredentials>> {
  return fx.env.client.workflow.start(rotateCredentials, { taskQueue, workflowId: `rotate-${randomUUID()}` });
}

/** The attempt that completed the rotation activity (history keeps only the last one). */
async function rotationAttempt(handle: WorkflowHandle): Promise<number> {
  const { events } = await handle.fetchHistory();
  const started = (events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
  expect(started).toHaveLength(1);
  return started[0]?.activityTaskStartedEventAttributes?.attempt ?? 0;
}

/** A runbook that needs a token: it can only succeed when its worker authenticates. */
async function exportOn(worker: RunningWorker): Promise<number> {
  const result = await fx.env.client.workflow.execute(costExport, {
    taskQueue: worker.taskQueue,
    workflowId: `cost-export-${randomUUID()}`,
    args: [{ window: 'previous-day' }],
  });
  return result.export.rows;
}

/** The file ends with one working secret (0600), no held token, and every earlier secret refused. */
async function expectRotated(path: string, old: ClientCredentials, dead: string[]): Promise<StoredCredentials> {
  const file = await stored(path);
  expect(file.clientId).toBe(old.clientId);
  expect(file.pendingRotation).toBeUndefined();
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  expect(fx.sim.ctx.state.credentials[old.clientId]?.clientSecret).toBe(file.clientSecret);
  expect(await tokenStatus(old.clientId, file.clientSecret)).toBe(200);
  for (const secret of [old.clientSecret, ...dead]) expect(await tokenStatus(old.clientId, secret)).toBe(404);
  return file;
}

test('a lost rotate answer: the retry rotates again with the held token; the lost secret is already dead', async () => {
  const { path, old } = await credentialsFile('lost-answer');
  const worker = await startWorker(fx, { credentials: old, credentialsFile: path });
  const lose = fx.proxy.add({
    method: 'POST',
    path: /\/v1\/api-credentials\/current\/rotate$/,
    action: 'reset-after',
    times: 1,
  });
  const before = issued.length;
  try {
    const handle = await rotate(worker.taskQueue);
    expect(await handle.result()).toEqual({ clientId: old.clientId, credentialsFile: path, verified: true });
    expect(await rotationAttempt(handle)).toBe(2);
    expect(fx.proxy.lost.filter((line) => line.includes('/current/rotate'))).toHaveLength(1);

    // Two rotations: the one whose answer was lost, and the retry's.
    expect(issued.length - before).toBe(2);
    const [lostSecret, kept] = issued.slice(before);
    const file = await expectRotated(path, old, [lostSecret ?? '']);
    expect(file.clientSecret).toBe(kept);
    // The rotating worker goes on with the new secret.
    expect(await exportOn(worker)).toBeGreaterThan(0);
  } finally {
    lose();
    await worker.stop();
  }
});

type Matcher = (credentials: StoredCredentials) => boolean;
const heldTokenWrite: Matcher = (c) => c.pendingRotation?.secretStored === false;
const newSecretWrite: Matcher = (c) => c.pendingRotation?.secretStored === true;
const droppedTokenWrite: Matcher = (c) => !c.pendingRotation && c.lastRotation !== undefined;

test.each([
  ['the held token, before rotating', 1, heldTokenWrite],
  ['the new secret, between rotate and store (a crash there)', 2, newSecretWrite],
  ['the file without the held token, after the proof', 1, droppedTokenWrite],
])('a failed write of %s: the retry recovers with %d rotation(s) in all', async (_what, rotations, failing) => {
  const { path, old } = await credentialsFile('failed-write');
  let failed = 0;
  const worker = await startWorker(fx, {
    credentials: old,
    credentialsFile: path,
    credentialsFileWrite: async (to, credentials) => {
      if (failed === 0 && failing(credentials)) {
        failed += 1;
        throw new Error(`injected: no space left on device writing ${to}`);
      }
      await writeCredentialsFile(to, credentials);
    },
  });
  const before = issued.length;
  try {
    const handle = await rotate(worker.taskQueue);
    expect(await handle.result()).toEqual({ clientId: old.clientId, credentialsFile: path, verified: true });
    expect(failed).toBe(1);
    expect(await rotationAttempt(handle)).toBe(2);
    expect(issued.length - before).toBe(rotations);
    const file = await expectRotated(path, old, issued.slice(before, -1));
    expect(file.clientSecret).toBe(issued.at(-1));
    expect(file.lastRotation).toContain(handle.workflowId);
  } finally {
    await worker.stop();
  }
});

test('a worker restarted after a crash between rotate and store finishes the rotation with the held token', async () => {
  const { path, old } = await credentialsFile('crashed');
  // What a worker killed between rotate and store leaves behind: the held token in the file, the old secret dead, and
  // the new secret known to nobody.
  const held = await issueToken(old);
  const pendingRotation = {
    accessToken: held.token ?? '',
    expiresAt: new Date(Date.now() + 12 * 3600_000).toISOString(),
    rotationId: 'rotate-killed/run-1/1',
    secretStored: false,
  };
  await writeCredentialsFile(path, { ...old, pendingRotation });
  const rotated = await request(`${fx.sim.baseUrl}/v1/api-credentials/current/rotate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${pendingRotation.accessToken}` },
  });
  await rotated.body.dump();
  expect(rotated.statusCode).toBe(200);
  const lostSecret = issued.at(-1) ?? '';
  expect(await tokenStatus(old.clientId, old.clientSecret)).toBe(404);

  const before = issued.length;
  const worker = await startWorker(fx, { credentials: old, credentialsFile: path });
  try {
    // Its first token call is refused (404); it finds the held token, rotates with it, and goes on.
    expect(await exportOn(worker)).toBeGreaterThan(0);
    expect(issued.length - before).toBe(1);
    const file = await expectRotated(path, old, [lostSecret]);
    expect(file.lastRotation).toBe(pendingRotation.rotationId);
  } finally {
    await worker.stop();
  }
});

test('two workers, one rotation: both keep working when their tokens expire, without a restart', async () => {
  const { path, old } = await credentialsFile('shared');
  // Separate clients and token providers, one credentials file, one task queue each (so each runs its own runbooks).
  const a = await startWorker(fx, { credentials: old, credentialsFile: path });
  const b = await startWorker(fx, { credentials: old, credentialsFile: path });
  expect(a.client.tokens).not.toBe(b.client.tokens);
  try {
    // Both hold tokens issued with the old secret.
    expect(await exportOn(a)).toBeGreaterThan(0);
    expect(await exportOn(b)).toBeGreaterThan(0);

    const handle = await rotate(a.taskQueue);
    expect(await handle.result()).toMatchObject({ verified: true });
    const file = await expectRotated(path, old, []);

    // Tokens from before the rotation stay valid for up to 12 h; past that, each worker needs a new token, which only
    // the new secret gives.
    fx.retiredSecrets.push(...Object.keys(fx.sim.ctx.state.tokens));
    await fx.control.advanceClock(43_200 + 60);
    expect(await exportOn(a)).toBeGreaterThan(0);
    expect(await exportOn(b)).toBeGreaterThan(0);

    const now = fx.sim.ctx.clock.now();
    const live = Object.values(fx.sim.ctx.state.tokens).filter((t) => t.clientId === old.clientId && t.expiresAt > now);
    expect(live.length).toBeGreaterThanOrEqual(2);
    expect(fx.sim.ctx.state.credentials[old.clientId]?.clientSecret).toBe(file.clientSecret);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test('no secret, held token or token appears in any workflow history or in the logs', async () => {
  fx.retiredSecrets.push(...Object.keys(fx.sim.ctx.state.tokens));
  await scanForSecrets(fx, 10);
});
