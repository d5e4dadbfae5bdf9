import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../simulator/server';
import { call as callSimulator, tokenOf, type Method } from './helpers';

/** This suite reads named fields of the answers: their bodies as records. */
async function call(sim: RunningSimulator, method: Method, path: string, token?: string, body?: unknown) {
  const reply = await callSimulator(sim, method, path, { token, body });
  return { status: reply.status, body: reply.body as Record<string, unknown> };
}

describe('simulator restart from --data-dir', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sim-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps credentials, tokens, vaults, jobs and the clock across a restart', async () => {
    const first = await startSimulator({ port: 0, dataDir, seed: 7 });
    const p = `/v1/projects/${first.projectId}`;
    let token = await tokenOf(first, { clientId: first.clientId, clientSecret: first.clientSecret });
    const extra = await call(first, 'POST', '/_simulator/credentials', undefined, {});
    const vault = await call(first, 'POST', `${p}/vaults`, token, {
      name: 'restart-vault',
      region: 'pa-east-1',
      vaultAttributes: { cloudProvider: 'PROVIDER_A', providerA: { encryptionKey: 'key/restart' } },
    });
    expect(vault.status).toBe(201);
    const vaultId = (vault.body.vault as { id: string }).id;
    const resources = await call(first, 'POST', `${p}/resources?pageSize=1`, token, {});
    const resourceId = (resources.body.resources as { id: string }[])[0]?.id ?? '';
    const job = await call(first, 'POST', `${p}/resources/${resourceId}/take-snapshot`, token, {
      vaultId,
      retentionDays: 3,
    });
    expect(job.status).toBe(202);
    await call(first, 'POST', '/_simulator/clock/advance', undefined, { seconds: 3600 });
    const rotated = await call(first, 'POST', '/v1/api-credentials/current/rotate', token);
    expect(rotated.status).toBe(200);
    const before = await call(first, 'GET', '/_simulator/state');
    await first.close();

    const second = await startSimulator({ port: 0, dataDir, seed: 7 });
    try {
      expect(second.projectId).toBe(first.projectId);
      // The token issued before the restart (and before the rotation) is still valid.
      expect((await call(second, 'GET', `${p}/vaults/${vaultId}`, token)).status).toBe(200);
      // The rotated secret is the one that works now; the extra credentials survived too.
      expect(
        (
          await call(second, 'POST', '/v1/token', undefined, {
            clientId: first.clientId,
            clientSecret: first.clientSecret,
          })
        ).status,
      ).toBe(404);
      token = await tokenOf(second, { clientId: first.clientId, clientSecret: rotated.body.clientSecret as string });
      await tokenOf(second, {
        clientId: extra.body.clientId as string,
        clientSecret: extra.body.clientSecret as string,
      });
      const jobAfter = await call(second, 'GET', `${p}/backup-jobs/${job.body.jobId as string}`, token);
      expect(jobAfter.status).toBe(200);
      const after = await call(second, 'GET', '/_simulator/state');
      // Same records; the backup job finished on the advanced clock, so its snapshot now exists too.
      const { snapshots: snapshotsBefore, ...restBefore } = before.body.counts as Record<string, number>;
      const { snapshots: snapshotsAfter, ...restAfter } = after.body.counts as Record<string, number>;
      expect(restAfter).toEqual(restBefore);
      expect(snapshotsAfter).toBe((snapshotsBefore ?? 0) + 1);
      const details = (jobAfter.body.job as { jobExecutionDetails: { status: string } }).jobExecutionDetails;
      expect(details.status).toBe('JOB_COMPLETED');
      // The clock offset persisted: simulated time is still an hour or more ahead.
      expect(Date.parse(after.body.now as string) - Date.now()).toBeGreaterThanOrEqual(3600_000 - 5_000);
    } finally {
      await second.close();
    }
  });
});
