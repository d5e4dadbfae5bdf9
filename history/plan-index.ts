// The recovery plan reports of an output folder (plan-reports/), newest first, each with its seal checked as the drill
// reports' are (./drill-index.ts). A file that cannot be read, or is not a plan report of the version read, is left
// out with the reason. Read incrementally: a report is parsed again only when its file changed, and the folder's seals
// are verified again only when one of its files or the keys changed.
import type { KeyObject, X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import type { PhaseInterval, PlanPhase, PlanReport, PlanStepResult } from '../runbooks/recovery-plan/contract';
import type { PlanStepKind } from '../runbooks/recovery-plan/plan';
import { verifyEvidence, type ChainResult } from '../runtime/evidence-verify';
import type { StampStatus } from '../runtime/evidence-verify-stamps';
import type { KeySource, SealCheck } from './drill-index';
import { readReportJson, type SkippedReport } from './drill-files';
import { stampKey, type FileStamp } from './file-stamps';
import { ReportFolder, sealCheck } from './report-folder';

export const PLAN_REPORTS_FOLDER = 'plan-reports';

/** The version of the plan report read (runbooks/recovery-plan/report-version.ts PLAN_REPORT_SCHEMA_VERSION). */
export const PLAN_HISTORY_SCHEMA_VERSION = 1;

// The whole report is read, checked against its type: the console draws the newest run's timeline from it.
const time = z.string().min(1);
const seconds = z.number().nonnegative();
const Phase = z.enum(['approval', 'restore', 'validate', 'manual', 'wait']) satisfies z.ZodType<PlanPhase>;
const Kind = z.enum(['restore', 'validate', 'manual', 'wait']) satisfies z.ZodType<PlanStepKind>;

const Step = z.object({
  id: z.string().min(1),
  kind: Kind,
  after: z.array(z.string()),
  of: z.string().optional(),
  status: z.enum(['passed', 'failed', 'skipped']),
  reason: z.string().optional(),
  startedAt: time.optional(),
  endedAt: time.optional(),
  phases: z.array(z.object({ phase: Phase, startedAt: time, endedAt: time }) satisfies z.ZodType<PhaseInterval>),
  resources: z
    .array(
      z.object({
        resourceId: z.string(),
        resourceName: z.string(),
        resourceType: z.string(),
        snapshotId: z.string(),
        pointInTime: z.string(),
        workflowId: z.string(),
        restoreJobId: z.string().optional(),
        status: z.enum(['succeeded', 'failed']),
        detail: z.string().optional(),
      }),
    )
    .optional(),
  validations: z.array(z.object({ resourceId: z.string(), passed: z.boolean(), detail: z.string() })).optional(),
  confirmedBy: z.string().optional(),
  note: z.string().optional(),
  rtoTargetSeconds: seconds.optional(),
  targetMet: z.boolean().optional(),
}) satisfies z.ZodType<PlanStepResult>;

const Report = z.object({
  schemaVersion: z.literal(PLAN_HISTORY_SCHEMA_VERSION),
  name: z.string().min(1),
  mode: z.enum(['drill', 'recover']),
  workflowId: z.string().min(1),
  runId: z.string().min(1),
  planSha256: z.string(),
  startedAt: time,
  finishedAt: time,
  verdict: z.enum(['PASS', 'FAIL']),
  failedSteps: z.array(z.string()),
  commonPoint: z
    .object({
      target: z.string(),
      at: time,
      skewSeconds: seconds,
      maxSkewSeconds: seconds,
      resources: z.array(
        z.object({ resourceId: z.string(), stepId: z.string(), snapshotId: z.string(), pointInTime: z.string() }),
      ),
    })
    .optional(),
  rto: z.object({
    seconds,
    targetSeconds: seconds,
    met: z.boolean(),
    criticalPath: z.array(z.string()),
    byPhase: z.object({
      approval: seconds,
      restore: seconds,
      validate: seconds,
      manual: seconds,
      wait: seconds,
      between: seconds,
    }),
    byStep: z.array(z.object({ stepId: z.string(), seconds })),
  }),
  rpoSeconds: seconds.optional(),
  steps: z.array(Step),
}) satisfies z.ZodType<PlanReport>;

/** A plan run as the console lists it: what its report says first, and the report whole for its timeline. */
export interface PlanEntry {
  /** The base name of the report's files in plan-reports/ (`plan-<name>--<runId>`). */
  file: string;
  name: string;
  mode: PlanReport['mode'];
  workflowId: string;
  runId: string;
  startedAt: string;
  finishedAt: string;
  /** `finishedAt` in milliseconds, for sorting. */
  finishedMs: number;
  verdict: PlanReport['verdict'];
  rto: Pick<PlanReport['rto'], 'seconds' | 'targetSeconds' | 'met' | 'criticalPath'>;
  /** The steps that failed, each with its reason. */
  failedSteps: { id: string; reason?: string }[];
  steps: { total: number; passed: number; failed: number; skipped: number };
  /** Absent when the plan restored nothing. */
  commonPoint?: { at: string; skewSeconds: number; maxSkewSeconds: number };
  /** The run's own HTML report (the Markdown and JSON beside it). */
  htmlPath: string;
  seal: SealCheck;
  /** Its timestamps (runtime/evidence-verify-stamps.ts); absent without a readable seal in a checked chain. */
  timestamps?: StampStatus;
  report: PlanReport;
}

export interface PlanIndex {
  /** The folder read. */
  dir: string;
  /** Newest first. */
  plans: PlanEntry[];
  skipped: SkippedReport[];
  chains: ChainResult[];
  keySource: KeySource;
  keyIds: string[];
}

type ReadPlan = { ok: true; report: PlanReport } | { ok: false; skipped: SkippedReport };

/** Reads `<file>.json` at `path`. Never throws for the file's content: a report it cannot read is skipped. */
export async function readPlanReport(path: string, file: string): Promise<ReadPlan> {
  const read = await readReportJson(path, file, { kind: 'plan', version: PLAN_HISTORY_SCHEMA_VERSION, schema: Report });
  if (!read.ok) return read;
  const { data: report, name } = read;
  if (Number.isNaN(Date.parse(report.finishedAt))) {
    return { ok: false, skipped: { file, reason: `finishedAt ${report.finishedAt} is not a date`, name } };
  }
  return { ok: true, report };
}

function entryOf(file: string, dir: string, report: PlanReport, seal: SealCheck): PlanEntry {
  const { rto, commonPoint: cp } = report;
  const count = (status: PlanStepResult['status']) => report.steps.filter((s) => s.status === status).length;
  return {
    file,
    name: report.name,
    mode: report.mode,
    workflowId: report.workflowId,
    runId: report.runId,
    startedAt: report.startedAt,
    finishedAt: report.finishedAt,
    finishedMs: Date.parse(report.finishedAt),
    verdict: report.verdict,
    rto: { seconds: rto.seconds, targetSeconds: rto.targetSeconds, met: rto.met, criticalPath: rto.criticalPath },
    failedSteps: report.failedSteps.map((id) => ({ id, reason: report.steps.find((s) => s.id === id)?.reason })),
    steps: { total: report.steps.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    ...(cp ? { commonPoint: { at: cp.at, skewSeconds: cp.skewSeconds, maxSkewSeconds: cp.maxSkewSeconds } } : {}),
    htmlPath: join(dir, `${file}.html`),
    seal,
    report,
  };
}

export interface PlanIndexOptions {
  /** The output folder (RUNBOOKS_OUTPUT_DIR); reports are read from its plan-reports/. */
  outputDir: string;
  /** Keys obtained out of band; without them, the public keys beside the reports (`keySource: 'folder'`). */
  publicKeys?: KeyObject[];
  /** The time-stamping authority's certificates (`--tsa-cert`): tokens are checked against them. */
  timestampCertificates?: readonly X509Certificate[];
}

/** Reads the plan reports of one output folder; keep one per folder and call `read` for each answer. */
export class PlanReader {
  readonly dir: string;
  private readonly folder: ReportFolder<ReadPlan>;
  /** The last verification, with the fingerprint of the folder and keys it was computed from. */
  private verified?: { fingerprint: string; chains: ChainResult[]; timestamps: Map<string, StampStatus> };
  /** Whether the last `read` verified the seals (else they came from the cache): for tests. */
  lastVerified = false;

  constructor(private readonly options: PlanIndexOptions) {
    this.dir = join(options.outputDir, PLAN_REPORTS_FOLDER);
    this.folder = new ReportFolder(this.dir, readPlanReport, options.publicKeys);
  }

  async read(): Promise<PlanIndex> {
    const { files, parsed, sealsByFile, keys, keySource: source, keyIds } = await this.folder.read();

    // Plan reports are few: the folder is verified whole whenever any of its files, or the keys, changed.
    const listing = [...files].map(([name, stamp]: [string, FileStamp]) => `${name}=${stampKey(stamp)}`);
    const tsa = (this.options.timestampCertificates ?? []).map((c) => c.fingerprint256).join(',');
    const fingerprint = `${keyIds.join(',')}|${tsa}|${listing.join('|')}`;
    this.lastVerified = this.verified?.fingerprint !== fingerprint;
    if (this.lastVerified) {
      const certificates = this.options.timestampCertificates;
      const verified =
        files.size === 0
          ? { chains: [], timestamps: [] }
          : await verifyEvidence(this.dir, keys, {
              seals: sealsByFile,
              ...(certificates ? { timestamps: certificates } : {}),
            });
      const timestamps = new Map(verified.timestamps.map((t) => [t.report, t.status]));
      this.verified = { fingerprint, chains: verified.chains, timestamps };
    }
    const chains = this.verified?.chains ?? [];
    const stampsOf = this.verified?.timestamps ?? new Map<string, StampStatus>();

    const plans: PlanEntry[] = [];
    const skipped: SkippedReport[] = [];
    for (const [file, r] of parsed) {
      if (!r.ok) {
        skipped.push(r.skipped);
        continue;
      }
      const entry = entryOf(file, this.dir, r.report, sealCheck(file, sealsByFile.get(file), chains));
      const stamps = stampsOf.get(file);
      plans.push(stamps ? { ...entry, timestamps: stamps } : entry);
    }
    plans.sort((a, b) => b.finishedMs - a.finishedMs || a.file.localeCompare(b.file));
    return { dir: this.dir, plans, skipped, chains, keySource: source, keyIds };
  }
}
