// `npm run bench -- --only history`: reading an output folder of 1,000 sealed drill reports with the history index,
// cold, unchanged and after one new report, against verifying the whole folder each time (no cache).
import { sign } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HistoryIndex } from '../../history';
import type { DrillReport } from '../../runbooks/dr-drill/report';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { SEAL_FORMAT, sealSha256, sha256, signedBytes, type Seal } from '../../runtime/evidence-seal';
import { verifyEvidence } from '../../runtime/evidence-verify';
import { compared, percentile, type Benchmark, type Measurement } from '../measure';

const CHAINS = 20;

/**
 * Writes `count` reports over `CHAINS` drills, sealed as runtime/evidence-seal.ts seals them (its code reads every seal
 * of the folder per report, which would make writing 1,000 of them quadratic; the checks below verify each one).
 */
export async function writeReports(dir: string, key: EvidenceKey, count: number, from = 0): Promise<void> {
  const heads = new Map<string, Seal>();
  for (let i = from; i < from + count; i++) {
    const chain = `drill-${i % CHAINS}`;
    const runId = `run-${String(i).padStart(5, '0')}`;
    const finishedAt = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();
    const report: DrillReport = {
      schemaVersion: 3,
      name: chain,
      workflowId: `drill-${chain}`,
      runId,
      startedAt: finishedAt,
      finishedAt,
      targets: { rpoSeconds: 86_400, rtoSeconds: 3_600 },
      resources: Array.from({ length: 5 }, (_, r) => ({
        resourceId: `${chain}-r${r}`,
        resourceName: `${chain}-db-${r}`,
        resourceType: 'AWS_RDS',
        snapshotReused: false,
        rpoSeconds: 3_600 + (i % 7) * 60,
        rtoSeconds: 300 + (i % 11) * 10,
        rpoMet: true,
        rtoMet: true,
        verdict: 'PASS' as const,
        reasons: [],
      })),
      summary: {
        total: 5,
        passed: 5,
        partial: 0,
        failed: 0,
        verdict: 'PASS',
        worstRpoSeconds: 4_000,
        worstRtoSeconds: 400,
      },
    };
    const base = `drill-${chain}--${runId}`;
    const json = JSON.stringify(report, null, 2) + '\n';
    await writeFile(join(dir, `${base}.json`), json);
    const head = heads.get(chain);
    const unsigned = {
      format: SEAL_FORMAT,
      algorithm: 'Ed25519',
      keyId: key.keyId,
      chain,
      sequence: head ? head.sequence + 1 : 1,
      report: base,
      workflowId: report.workflowId,
      runId,
      files: { json: sha256(json) },
      previousSha256: head ? sealSha256(head) : null,
      sealedAt: finishedAt,
    } as const;
    const seal: Seal = { ...unsigned, signature: sign(null, signedBytes(unsigned), key.privateKey).toString('base64') };
    heads.set(chain, seal);
    await writeFile(join(dir, `${base}.seal.json`), JSON.stringify(seal, null, 2) + '\n');
  }
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export const historyBenchmark: Benchmark = {
  name: 'history',
  async run({ quick, log }) {
    const reports = 1_000;
    const rounds = quick ? 10 : 40;
    const root = await mkdtemp(join(tmpdir(), 'bench-history-'));
    try {
      const key = await loadOrCreateEvidenceKey(join(root, 'key.pem'));
      const dir = join(root, 'output', 'drill-reports');
      await mkdir(dir, { recursive: true });
      await writeReports(dir, key, reports);
      const index = new HistoryIndex({ outputDir: join(root, 'output'), publicKeys: [key.publicKey] });
      const cold = await time(() => index.read());
      const first = await index.read();
      const bad = first.drills.drills.filter((d) => d.seal.status !== 'verified').length;
      if (first.drills.drills.length !== reports || bad > 0) {
        throw new Error(
          `expected ${reports} verified reports, read ${first.drills.drills.length}, ${bad} not verified`,
        );
      }
      log(`history: ${reports} reports written, cold read ${cold.toFixed(0)} ms`);

      const warm: number[] = [];
      const naive: number[] = [];
      for (let i = 0; i < rounds; i++) {
        warm.push(await time(() => index.read()));
        naive.push(await time(() => verifyEvidence(dir, [key.publicKey])));
      }
      // One new report per round, written as a worker would: one chain verified again.
      const changed: number[] = [];
      for (let i = 0; i < rounds; i++) {
        await writeReports(dir, key, 1, reports + i);
        changed.push(await time(() => index.read()));
      }
      const note = `${reports} reports in ${CHAINS} chains, ${rounds} rounds, p95; cold read ${cold.toFixed(0)} ms`;
      const baseline = { name: 'verify the whole folder', value: percentile(naive, 95) };
      const goal = { text: '≤300 ms', met: (_ratio: number, value: number) => value <= 300 };
      const out: Measurement[] = [
        compared('history read, folder unchanged', 'ms', percentile(warm, 95), baseline, goal, note),
        compared('history read after one new report', 'ms', percentile(changed, 95), baseline, goal, note),
      ];
      return out;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};
