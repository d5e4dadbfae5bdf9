// The credentials file and its recoverable rotation, against the in-process simulator (no Temporal needed).
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import {
  CredentialsFile,
  CredentialsFileError,
  CredentialsLostError,
  withFileLock,
  writeCredentialsFile,
  type StoredCredentials,
} from '../../runtime/credentials-file';
import { closeHttpPools, HttpTransport } from '../../api';
import { startSimulator, type RunningSimulator } from '../../simulator/server';

let sim: RunningSimulator;
let dir: string;
let transport: HttpTransport;

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'runbooks-credentials-'));
  transport = new HttpTransport({ baseUrl: sim.baseUrl });
});
afterAll(async () => {
  await closeHttpPools();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
async function fileWith(extra: Partial<StoredCredentials> = {}) {
  const res = await request(`${sim.baseUrl}/_simulator/credentials`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const old = (await res.body.json()) as { clientId: string; clientSecret: string };
  const path = join(dir, `credentials-${(files += 1)}.json`);
  await writeCredentialsFile(path, { ...old, ...extra });
  return { path, old, file: new CredentialsFile({ path, transport: () => transport }) };
}

const read = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as StoredCredentials;
const secretOnService = (clientId: string) => sim.ctx.state.credentials[clientId]?.clientSecret;
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

test('a rotation ends with the service secret in the file (0600), no held token, and the lock released', async () => {
  const { path, old, file } = await fileWith();
  expect(await file.rotate('wf/run/1')).toBe('rotated');
  const stored = await read(path);
  expect(stored).toEqual({
    clientId: old.clientId,
    clientSecret: secretOnService(old.clientId),
    lastRotation: 'wf/run/1',
  });
  expect(stored.clientSecret).not.toBe(old.clientSecret);
  expect((await stat(path)).mode & 0o777).toBe(0o600);
  await expect(stat(`${path}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
});

test('a retry of a rotation that completed (its completion was lost) does not rotate again', async () => {
  const { path, old, file } = await fileWith();
  await file.rotate('wf/run/1');
  const after = secretOnService(old.clientId);
  expect(await file.rotate('wf/run/1')).toBe('alreadyDone');
  expect(secretOnService(old.clientId)).toBe(after);
  expect((await read(path)).clientSecret).toBe(after);
});

test('a dead secret and no held token: CredentialsLostError, and the file is left alone', async () => {
  const { path, old, file } = await fileWith({ clientSecret: 'not-the-secret' });
  const before = await readFile(path, 'utf8');
  await expect(file.rotate('wf/run/1')).rejects.toBeInstanceOf(CredentialsLostError);
  expect(await readFile(path, 'utf8')).toBe(before);
  expect(secretOnService(old.clientId)).toBe(old.clientSecret);
});

test('a held token about to expire is not used: a fresh one is asked for with the file secret', async () => {
  const soon = new Date(Date.now() + 60_000).toISOString();
  const pendingRotation = { accessToken: 'sim.refused', expiresAt: soon, rotationId: 'old/run/1', secretStored: false };
  const { path, old, file } = await fileWith({ pendingRotation });
  expect(await file.rotate('wf/run/2')).toBe('rotated');
  expect((await read(path)).clientSecret).toBe(secretOnService(old.clientId));
});

test('a short-lived held token is used while it has a quarter of its life left', async () => {
  const { path, old, file } = await fileWith();
  const res = await request(`${sim.baseUrl}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(old),
  });
  const { access_token: accessToken } = (await res.body.json()) as { access_token: string };
  // Issued 1 minute ago for 5 minutes; the file's secret is dead, so only the held token can rotate.
  const issuedAt = new Date(Date.now() - 60_000).toISOString();
  const expiresAt = new Date(Date.now() + 240_000).toISOString();
  const pendingRotation = { accessToken, issuedAt, expiresAt, rotationId: 'wf/run/1', secretStored: false };
  await writeCredentialsFile(path, { clientId: old.clientId, clientSecret: 'dead-secret', pendingRotation });
  expect(await file.rotate('wf/run/1')).toBe('rotated');
  expect((await read(path)).clientSecret).toBe(secretOnService(old.clientId));
});

test('a held token the service refuses (401) is dropped; the next try rotates with a fresh token', async () => {
  const pendingRotation = {
    accessToken: 'sim.revoked',
    expiresAt: inAnHour(),
    rotationId: 'wf/run/1',
    secretStored: false,
  };
  const { path, old, file } = await fileWith({ pendingRotation });
  await expect(file.rotate('wf/run/1')).rejects.toThrow(/held for the rotation was refused/);
  expect(await read(path)).toEqual({ clientId: old.clientId, clientSecret: old.clientSecret });
  expect(await file.rotate('wf/run/1')).toBe('rotated');
  expect((await read(path)).clientSecret).toBe(secretOnService(old.clientId));
});

test('recover: a file rewritten by another worker is returned as it is, without rotating', async () => {
  const { path, old, file } = await fileWith();
  await writeCredentialsFile(path, { clientId: old.clientId, clientSecret: 'rotated-elsewhere' });
  expect(await file.recover(old)).toEqual({ clientId: old.clientId, clientSecret: 'rotated-elsewhere' });
  expect(secretOnService(old.clientId)).toBe(old.clientSecret);
});

test('recover: a dead secret and no held token gives nothing newer', async () => {
  const { old, file } = await fileWith();
  sim.ctx.state.credentials[old.clientId]!.clientSecret = 'rotated-by-the-console';
  expect(await file.recover(old)).toBeUndefined();
});

describe('the rotation lock', () => {
  test('a lock left by a process that is gone (same host) is taken over at once', async () => {
    const gone = spawnSync('true').pid;
    const path = join(dir, 'lock-dead');
    await writeFile(`${path}.lock`, `${gone} ${hostname()} 2026-01-01T00:00:00Z\n`);
    const started = Date.now();
    await expect(withFileLock(path, 5_000, () => Promise.resolve('ran'))).resolves.toBe('ran');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('a live holder (or one on another host) is waited for, then the wait gives up', async () => {
    const path = join(dir, 'lock-live');
    for (const holder of [`${process.pid} ${hostname()}`, `1 some-other-host`]) {
      await writeFile(`${path}.lock`, `${holder} ${new Date().toISOString()}\n`);
      await expect(withFileLock(path, 300, () => Promise.resolve('ran'))).rejects.toBeInstanceOf(CredentialsFileError);
    }
    await rm(`${path}.lock`);
    await expect(withFileLock(path, 300, () => Promise.resolve('ran'))).resolves.toBe('ran');
  });
});

test('a rotation whose lock was taken over meanwhile stores nothing more, and leaves the successor its lock', async () => {
  const { path, old } = await fileWith();
  let writes = 0;
  const successor = `${JSON.stringify({ pid: 1, host: 'another-host', token: 'successor' })}\n`;
  const file = new CredentialsFile({
    path,
    transport: () => transport,
    write: async (target, credentials) => {
      writes += 1;
      await writeCredentialsFile(target, credentials);
      if (writes > 1) return;
      // This holder froze past the staleness limit, and another worker took the lock over: the next renewal sees it.
      await writeFile(`${path}.lock`, successor);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
    },
  });
  await expect(file.rotate('wf/run/taken-over')).rejects.toThrow(/taken over while this rotation held it/);
  expect(writes).toBe(1);
  const stored = await read(path);
  // The held token stays in the file, so the successor can finish the rotation.
  expect(stored.clientSecret).toBe(old.clientSecret);
  expect(stored.pendingRotation?.rotationId).toBe('wf/run/taken-over');
  expect(await readFile(`${path}.lock`, 'utf8')).toBe(successor);
});
