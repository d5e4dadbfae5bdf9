// Injected faults: those that answer instead of the route, those that let it act and then lose the answer, `times`,
// `method`, and latency that never drops a request the service received.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { loadState } from '../../simulator/store';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { call, control, errorOf, projectPath, stateOf, tokenFor } from './helpers';

let sim: RunningSimulator;
let token: string;
const dataDir = mkdtempSync(join(tmpdir(), 'sim-faults-'));

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5, dataDir });
  token = await tokenFor(sim);
});
afterEach(() => control(sim, 'DELETE', '/faults'));
afterAll(async () => {
  await sim.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const backupJobIds = () => Object.keys(sim.ctx.state.backupJobs);
const onDisk = () => Object.keys(loadState(dataDir)?.backupJobs ?? {});

/** Exactly one backup job was created since `before`, and it is on disk. */
function expectOneJobSince(before: string[]): void {
  const created = backupJobIds().filter((id) => !before.includes(id));
  expect(created).toHaveLength(1);
  expect(onDisk()).toEqual(expect.arrayContaining(created));
}

/** A take-snapshot call of a resource and a vault in its region. */
function takeSnapshot(index = 0) {
  const resource = Object.values(sim.ctx.state.resources)[index]?.resource;
  const vault = Object.values(sim.ctx.state.vaults).find((v) => v.region === resource?.region);
  if (!resource || !vault) throw new Error('no resource with a vault in its region');
  return {
    path: `${projectPath(sim)}/resources/${resource.id}/take-snapshot`,
    body: { vaultId: vault.id, retentionDays: 7 },
  };
}

const setFaults = async (faults: Record<string, unknown>) => {
  const reply = await control(sim, 'PUT', '/faults', faults);
  expect(reply.status).toBe(200);
  return reply;
};

describe('faults after the route acted', () => {
  test.each([
    ['503-after', 503],
    ['500-after', 500],
  ])('%s: the job is created and on disk, the caller gets %i', async (kind, status) => {
    await setFaults({ rate: 1, kinds: [kind], pathPrefix: '/v1/projects', times: 1 });
    const before = backupJobIds();
    const { path, body } = takeSnapshot();
    const reply = await call(sim, 'POST', path, { body, token });
    expect(reply.status).toBe(status);
    expect(reply.body).toEqual({ error: expect.stringMatching(/^injected fault: /) as unknown });
    expect(reply.body).not.toHaveProperty('jobId');
    expectOneJobSince(before);
  });

  test('reset-after: the connection drops, yet the job is created and on disk', async () => {
    await setFaults({ rate: 1, kinds: ['reset-after'], method: 'post', times: 1 });
    const before = backupJobIds();
    const { path, body } = takeSnapshot(1);
    await expect(call(sim, 'POST', path, { body, token })).rejects.toThrow();
    expectOneJobSince(before);
  });

  test('control: a 503 before the route creates nothing', async () => {
    await setFaults({ rate: 1, kinds: ['503'], method: 'POST', times: 1 });
    const before = backupJobIds();
    const { path, body } = takeSnapshot(2);
    const reply = await call(sim, 'POST', path, { body, token });
    expect(reply.status).toBe(503);
    expect(backupJobIds()).toEqual(before);
  });
});

describe('times and method', () => {
  test('times: that many faulted requests, then the configuration removes itself', async () => {
    await setFaults({ rate: 1, kinds: ['503'], pathPrefix: '/v1/projects', times: 2 });
    const path = `${projectPath(sim)}/vaults/list`;
    expect((await call(sim, 'POST', path, { body: {}, token })).status).toBe(503);
    expect((await control(sim, 'GET', '/faults')).body).toMatchObject({ faults: { times: 1 } });
    expect((await call(sim, 'POST', path, { body: {}, token })).status).toBe(503);
    expect((await control(sim, 'GET', '/faults')).body).toEqual({ faults: null });
    expect((await call(sim, 'POST', path, { body: {}, token })).status).toBe(200);
    expect(loadState(dataDir)?.faults).toBeUndefined();
  });

  test('a reset before the route counts too, and the count left is on disk at once', async () => {
    await setFaults({ rate: 1, kinds: ['reset'], pathPrefix: '/v1/projects', times: 2 });
    const before = backupJobIds();
    const { path, body } = takeSnapshot(4);
    await expect(call(sim, 'POST', path, { body, token })).rejects.toThrow();
    expect(backupJobIds()).toEqual(before);
    expect(loadState(dataDir)?.faults).toMatchObject({ kinds: ['reset'], times: 1 });
  });

  test('method: only requests with that method are faulted (any case)', async () => {
    const set = await setFaults({ rate: 1, kinds: ['500'], pathPrefix: '/v1/projects', method: 'get' });
    expect(set.body).toMatchObject({ faults: { method: 'GET' } });
    const vaults = `${projectPath(sim)}/vaults`;
    expect((await call(sim, 'POST', `${vaults}/list`, { body: {}, token })).status).toBe(200);
    const vaultId = Object.keys(sim.ctx.state.vaults)[0] ?? '';
    expect((await call(sim, 'GET', `${vaults}/${vaultId}`, { token })).status).toBe(500);
  });

  test('never on the control API, nor on the token call unless pathPrefix names it', async () => {
    await setFaults({ rate: 1, kinds: ['500'] });
    expect((await control(sim, 'GET', '/health')).status).toBe(200);
    expect(await tokenFor(sim)).toEqual(expect.any(String));
    await setFaults({ rate: 1, kinds: ['500'], pathPrefix: '/v1/token' });
    await expect(tokenFor(sim)).rejects.toThrow('500');
  });
});

describe('latency', () => {
  test('a request whose client gave up waiting is still handled', async () => {
    await setFaults({ rate: 1, kinds: ['latency'], latencyMs: 600, method: 'POST', times: 1 });
    const before = backupJobIds();
    const { path, body } = takeSnapshot(3);
    const aborted = request(`${sim.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(150),
    });
    await expect(aborted).rejects.toThrow();
    expect(backupJobIds()).toEqual(before);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expectOneJobSince(before);
  });
});

describe('PUT /_simulator/faults bounds its input, and a refusal changes nothing', () => {
  test.each([
    [{ rate: 1.5, kinds: ['503'] }, 'body.rate'],
    [{ rate: 0.5, kinds: [] }, 'body.kinds'],
    [{ rate: 0.5, kinds: ['418'] }, 'body.kinds.0'],
    [{ rate: 0.5, kinds: ['latency'], latencyMs: 60_001 }, 'body.latencyMs'],
    [{ rate: 0.5, kinds: ['429'], retryAfterSeconds: 3601 }, 'body.retryAfterSeconds'],
    [{ rate: 0.5, kinds: ['503'], times: 0 }, 'body.times'],
    [{ rate: 0.5, kinds: ['503'], times: 1.5 }, 'body.times'],
    [{ rate: 0.5, kinds: ['503'], method: 'FETCH' }, 'body.method'],
    [{ rate: 0.5, kinds: ['503'], pathPrefix: 'v1' }, 'body.pathPrefix'],
    [{ rate: 0.5, kinds: ['503'], path: '/v1' }, 'body.path'],
  ])('%j → 400 naming %s', async (faults, field) => {
    await setFaults({ rate: 0.1, kinds: ['503'], times: 3 });
    const before = stateOf(sim);
    const reply = await control(sim, 'PUT', '/faults', faults);
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toMatch(new RegExp(`^invalid ${field.replace(/\./g, '\\.')}: `));
    expect(stateOf(sim)).toEqual(before);
  });
});
