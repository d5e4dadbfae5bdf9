// Trusted time for drills on a real Temporal, with a real RFC 3161 authority (sigstore's timestamp-server) in its own
// process: a drill's seal and attestations get their tokens as the report is written; with the authority killed
// (kill -9), a drill finishes at once with its verdict, says its timestamps are pending, and a run of their own adds
// them once the authority is back, over the digests sealed before.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { drDrill, drillEvidenceTimestamps } from '../../runbooks/workflows';
import type { DrDrillInput } from '../../runbooks/dr-drill/contract';
import { certificatesOf } from '../../runtime/evidence-timestamp';
import { verifyEvidence } from '../../runtime/evidence-verify';
import { loadOrCreateEvidenceKey, DEFAULT_EVIDENCE_KEY_FILE } from '../../runtime/evidence-key';
import { startTimestampAuthority, type TimestampAuthority } from '../helpers/timestamp-authority';
import { bucketDestination, drillVaultAndAccount, e2eSuite, nudge, seededVmWithSnapshot, startWorker } from './helpers';

let tsa: TimestampAuthority;
/** Every chain the authority has had: its key lives in memory, so a restart makes a new one. */
const chains: string[] = [];

const fx = e2eSuite(async () => {
  tsa = await startTimestampAuthority();
  chains.push(tsa.chainPem);
  return {};
});

afterAll(async () => {
  await tsa?.kill();
});

function drillInput(): DrDrillInput {
  const { vault, account } = drillVaultAndAccount(fx);
  return {
    name: `stamped-${randomUUID().slice(0, 8)}`,
    resources: { ids: [seededVmWithSnapshot(fx).id] },
    vaultId: vault.id,
    restoreAccountId: account.id,
    destination: bucketDestination('dr-drill-restores', 'stamped/'),
    targets: { rpoSeconds: 30 * 86_400, rtoSeconds: 600 },
    retentionDays: 3,
    parallelism: 1,
  };
}

async function drill(taskQueue: string) {
  const input = drillInput();
  const handle = await fx.env.client.workflow.start(drDrill, {
    taskQueue,
    workflowId: `drill-${input.name}`,
    args: [input],
  });
  const timer = setInterval(() => void nudge(handle).catch(() => undefined), 1_000);
  const result = await handle.result().finally(() => clearInterval(timer));
  return { result, handle };
}

async function timestampsOf(reportJson: string) {
  const key = await loadOrCreateEvidenceKey(join(fx.outputDir, DEFAULT_EVIDENCE_KEY_FILE));
  const trusted = chains.flatMap(certificatesOf);
  const verification = await verifyEvidence(join(fx.outputDir, 'drill-reports'), [key.publicKey], {
    timestamps: trusted,
  });
  const base = reportJson
    .split('/')
    .at(-1)
    ?.replace(/\.json$/, '');
  return { verification, stamps: verification.timestamps.find((s) => s.report === base) };
}

test('a drill writes the tokens of its seal and attestations as it writes its report', async () => {
  const worker = await startWorker(fx, { timestampAuthority: { url: tsa.url, certificatesPem: tsa.chainPem } });
  try {
    const { result } = await drill(worker.taskQueue);
    expect(result.summary.verdict).toBe('PASS');
    expect(result.timestamps).toEqual({ status: 'added', files: 3 });
    const { verification, stamps } = await timestampsOf(result.report.json);
    expect(verification.first).toBeUndefined();
    expect(stamps).toMatchObject({ status: 'timestamped', missing: [] });
  } finally {
    await worker.stop();
  }
});

test('with the authority killed, the drill ends with its verdict, and a run of its own adds the tokens once it is back', async () => {
  const worker = await startWorker(fx, { timestampAuthority: { url: tsa.url } });
  try {
    const { port } = tsa;
    await tsa.kill();
    const { result, handle } = await drill(worker.taskQueue);
    expect(result.summary.verdict).toBe('PASS');
    expect(result.timestamps).toMatchObject({ status: 'pending', files: 0 });
    expect(result.timestamps?.reason).toContain('could not be reached');
    const before = await timestampsOf(result.report.json);
    expect(before.verification.first).toBeUndefined();
    expect(before.stamps?.status).toBe('none');

    // The retry runs on, after the drill ended; the authority comes back on the same address.
    const retry: WorkflowHandle<typeof drillEvidenceTimestamps> = fx.env.client.workflow.getHandle(
      `${handle.workflowId}--timestamps--${handle.firstExecutionRunId}`,
    );
    expect((await retry.describe()).status.name).toBe('RUNNING');
    tsa = await startTimestampAuthority(port);
    chains.push(tsa.chainPem);
    const stamped = await retry.result();
    expect(stamped.stamped).toHaveLength(3);
    const after = await timestampsOf(result.report.json);
    expect(after.verification.first).toBeUndefined();
    expect(after.stamps).toMatchObject({ status: 'timestamped', missing: [] });
  } finally {
    await worker.stop();
  }
}, 180_000);
