// offboardSourceAccount and rotateCredentials end to end.
import { createHash, randomUUID } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { NotFoundError } from '../../api';
import { REMAINING_COLUMNS } from '../../runbooks/offboard-source-account/activities';
import { costExport, offboardSourceAccount, rotateCredentials } from '../../runbooks/workflows';
import { FailureType, RunbookResourceKey } from '../../contracts';
import type { ProxyAction } from '../../bench/http-proxy';
import {
  expectRefusedInput,
  failureOf,
  scanForSecrets,
  setupE2E,
  startWorker,
  teardownE2E,
  wireProvider,
  wireResourceType,
  type E2E,
} from './helpers';

let fx: E2E;

beforeAll(async () => {
  fx = await setupE2E();
}, 120_000);

afterAll(() => teardownE2E(fx), 60_000);

function accountNamed(name: string) {
  const account = Object.values(fx.sim.ctx.state.sourceAccounts).find((a) => a.name === name);
  if (!account) throw new Error(`no seeded source account ${name}`);
  return account;
}

function offboard(accountId: string, taskQueue = fx.worker.taskQueue) {
  return fx.env.client.workflow.start(offboardSourceAccount, {
    taskQueue,
    workflowId: `offboard-${randomUUID()}`,
    args: [{ accountId }],
  });
}

/** A proxy rule on the one delete of the account; the returned function removes it. */
function onDelete(accountId: string, action: ProxyAction): () => void {
  return fx.proxy.add({ method: 'DELETE', path: new RegExp(`/source-accounts/${accountId}$`), times: 1, action });
}

async function tokenStatus(clientId: string, clientSecret: string): Promise<number> {
  const res = await request(`${fx.sim.baseUrl}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, clientSecret }),
  });
  await res.body.dump();
  return res.statusCode;
}

test('offboarding disconnects, deletes, and reports the resources that stay because they have snapshots', async () => {
  const account = accountNamed('payments-staging');
  const state = fx.sim.ctx.state;
  const owned = Object.values(state.resources).filter((r) => r.sourceAccountId === account.id);
  const snapshotted = new Set(Object.values(state.snapshots).map((s) => s.resourceId));
  const staying = owned.filter((r) => snapshotted.has(r.resource.id)).map((r) => r.resource.id);
  expect(owned.length).toBeGreaterThan(staying.length);
  expect(staying.length).toBeGreaterThan(0);

  const handle = await offboard(account.id);
  const result = await handle.result();

  expect(result).toMatchObject({ accountId: account.id, providerAccountId: account.providerAccountId, deleted: true });
  expect(result.remainingCount).toBe(staying.length);
  // The list is in the file, not in the result: one CSV row per staying resource, each with its snapshots.
  const file = result.remainingFile;
  if (!file) throw new Error('the run wrote no remaining-resources file');
  // Named for the run, so that no other run's list replaces it.
  const name = `${handle.workflowId}--${handle.firstExecutionRunId}-remaining.csv`;
  expect(file.path).toBe(join(fx.outputDir, 'offboarding', name));
  const csv = await readFile(file.path, 'utf8');
  expect(file.sha256).toBe(createHash('sha256').update(csv).digest('hex'));
  expect(file.bytes).toBe(Buffer.byteLength(csv));
  const [header, ...rows] = csv.split('\r\n').slice(0, -1);
  expect(header).toBe(REMAINING_COLUMNS.join(','));
  expect(file.rows).toBe(rows.length);
  const cells = rows.map((row) => row.split(','));
  expect(cells.map((c) => c[0]).sort()).toEqual([...staying].sort());
  expect(cells.every((c) => Number(c[REMAINING_COLUMNS.indexOf('snapshots')]) > 0)).toBe(true);
  expect(cells.every((c) => c[REMAINING_COLUMNS.indexOf('backupStatus')] === 'DISCONNECTED')).toBe(true);
  // Type and provider as the service names them, in its dialect.
  for (const c of cells) {
    const resource = state.resources[c[0] ?? '']?.resource;
    expect([c[REMAINING_COLUMNS.indexOf('resourceType')], c[REMAINING_COLUMNS.indexOf('cloudProvider')]]).toEqual([
      wireResourceType(resource?.resourceType ?? '?'),
      wireProvider(resource?.cloudProvider ?? '?'),
    ]);
  }
  await expect(fx.service.getSourceAccount(account.id)).rejects.toBeInstanceOf(NotFoundError);
  const left = await fx.service.getResource(staying[0] ?? '');
  expect(left.backupStatus).toBe('DISCONNECTED');
  expect((await handle.describe()).typedSearchAttributes.get(RunbookResourceKey)).toBe(account.id);
});

test('a delete refused with 409 (the account was reconnected meanwhile) fails the run with a typed Conflict', async () => {
  const account = accountNamed('erp-prod');
  // Someone reconnects the account between the runbook's check and its delete.
  const remove = onDelete(account.id, async () => {
    await fx.service.reconnectSourceAccount(account.id);
  });
  try {
    const failure = await failureOf(await offboard(account.id));
    expect(failure.type).toBe(FailureType.Conflict);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('refused to delete');
    expect(failure.message).toContain('disconnect the source account before deleting it');
  } finally {
    remove();
  }
  expect((await fx.service.getSourceAccount(account.id)).status).toBe('CONNECTED');
});

test('a delete whose answer is lost is retried, and the 404 of the retry counts as deleted', async () => {
  const account = accountNamed('legacy-sandbox');
  const remove = onDelete(account.id, 'reset-after');
  try {
    const result = await (await offboard(account.id)).result();
    expect(result).toMatchObject({ accountId: account.id, deleted: true });
  } finally {
    remove();
  }
  expect(fx.proxy.lost.some((line) => line.startsWith(`DELETE`) && line.includes(account.id))).toBe(true);
  await expect(fx.service.getSourceAccount(account.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('offboarding an unknown account fails with a typed NOT_FOUND', async () => {
  const failure = await failureOf(await offboard(randomUUID()));
  expect(failure.type).toBe(FailureType.NotFound);
  expect(failure.nonRetryable).toBe(true);
});

test.each([
  [{ accountId: '' }, 'accountId'],
  [{}, 'accountId'],
])('offboarding with invalid input %j fails at once with InvalidInput naming %s', async (input, field) => {
  const handle = await fx.env.client.workflow.start('offboardSourceAccount', {
    taskQueue: fx.worker.taskQueue,
    workflowId: `offboard-invalid-${randomUUID()}`,
    args: [input],
  });
  await expectRefusedInput(handle, `invalid input ${field}`);
});

test('a worker without a credentials file refuses to rotate, and its secret keeps working', async () => {
  const failure = await failureOf(
    await fx.env.client.workflow.start(rotateCredentials, {
      taskQueue: fx.worker.taskQueue,
      workflowId: `rotate-${randomUUID()}`,
    }),
  );
  expect(failure.type).toBe(FailureType.InvalidInput);
  expect(failure.message).toContain('credentials file');
  expect(await tokenStatus(fx.sim.clientId, fx.sim.clientSecret)).toBe(200);
});

test('rotating credentials stores the new secret (0600), retires the old one, and the worker goes on with the new', async () => {
  const old = await fx.control.credentials();
  const credentialsFile = join(fx.outputDir, 'credentials.json');
  await writeFile(credentialsFile, JSON.stringify(old), { mode: 0o644 });
  const worker = await startWorker(fx, { credentials: old, credentialsFile });
  try {
    const handle = await fx.env.client.workflow.start(rotateCredentials, {
      taskQueue: worker.taskQueue,
      workflowId: `rotate-${randomUUID()}`,
    });
    const result = await handle.result();
    fx.retiredSecrets.push(old.clientSecret);

    expect(result).toEqual({ clientId: old.clientId, credentialsFile, verified: true });
    expect((await stat(credentialsFile)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(credentialsFile, 'utf8')) as { clientId: string; clientSecret: string };
    expect(stored.clientId).toBe(old.clientId);
    expect(stored.clientSecret).not.toBe(old.clientSecret);
    expect(fx.sim.ctx.state.credentials[old.clientId]?.clientSecret).toBe(stored.clientSecret);
    expect(await tokenStatus(old.clientId, stored.clientSecret)).toBe(200);
    expect(await tokenStatus(old.clientId, old.clientSecret)).toBe(404);

    // The running worker drops its cached token and gets its next one with the new secret.
    const tokensOf = () => Object.values(fx.sim.ctx.state.tokens).filter((t) => t.clientId === old.clientId).length;
    const before = tokensOf();
    const exported = await fx.env.client.workflow.execute(costExport, {
      taskQueue: worker.taskQueue,
      workflowId: `cost-export-after-rotation-${randomUUID()}`,
      args: [{ window: 'previous-day' }],
    });
    expect(exported.export.rows).toBeGreaterThan(0);
    expect(tokensOf()).toBeGreaterThan(before);
  } finally {
    await worker.stop();
  }
});

test('no secret or token appears in any workflow history or in the logs', async () => {
  await scanForSecrets(fx, 7);
  expect(fx.retiredSecrets).toHaveLength(1);
});
