// One drill report file read into what the history shows of it; other versions and unreadable files are skipped.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { DrillCounts, DrillVerdict } from '../runbooks/dr-drill/report';

/** The version of the drill report the history reads (runbooks/dr-drill/report.ts DRILL_REPORT_SCHEMA_VERSION). */
export const HISTORY_SCHEMA_VERSION = 3;

const Verdict = z.enum(['PASS', 'PARTIAL', 'FAIL']) satisfies z.ZodType<DrillVerdict>;
const seconds = z.number().nonnegative().optional();

/** What a latest-clean search judged by and found: shown, never decisive, so a malformed one is left out. */
const CleanCheckName = z.object({ name: z.string().min(1), sha256: z.string() });
const CleanSearchFields = z.object({ check: CleanCheckName, verdict: z.string() });
const CleanFields = CleanSearchFields.extend({
  behindNewest: z.object({ points: z.number().int().nonnegative(), seconds: z.number().nonnegative() }),
});

/** The fields the history reads; the report holds more, and they are left as they are. */
const ReportFields = z.object({
  schemaVersion: z.literal(HISTORY_SCHEMA_VERSION),
  name: z.string().min(1),
  workflowId: z.string().min(1),
  runId: z.string().min(1),
  startedAt: z.string().min(1),
  finishedAt: z.string().min(1),
  targets: z.object({ rpoSeconds: z.number().nonnegative(), rtoSeconds: z.number().nonnegative() }),
  resources: z.array(
    z.object({
      resourceId: z.string(),
      resourceName: z.string(),
      resourceType: z.string(),
      rpoSeconds: seconds,
      rtoSeconds: seconds,
      rpoMet: z.boolean().optional(),
      rtoMet: z.boolean().optional(),
      verdict: Verdict,
      recoveryPoint: z
        .object({ snapshotId: z.string(), pointInTime: z.string(), clean: CleanFields.optional() })
        .optional()
        .catch(undefined),
      cleanSearch: CleanSearchFields.optional().catch(undefined),
    }),
  ),
  summary: z.object({
    total: z.number().int().nonnegative(),
    passed: z.number().int().nonnegative(),
    partial: z.number().int().nonnegative().optional(),
    failed: z.number().int().nonnegative(),
    verdict: Verdict,
    worstRpoSeconds: seconds,
    worstRtoSeconds: seconds,
  }),
  // A rotating drill's period and scope, for its coverage; a report whose rotation is unreadable is read without it.
  rotation: z
    .object({ withinDays: z.number().int().positive(), scopeIds: z.array(z.string()).optional() })
    .optional()
    .catch(undefined),
});

/**
 * A resource's latest-clean search: the check it judged by (never just "clean"), its verdict, and the point it found
 * with how far that is behind the newest of the window; no point when none of the window passed.
 */
export interface DrillCleanEntry {
  check: { name: string; sha256: string };
  verdict: string;
  point?: { snapshotId: string; pointInTime: string; behindNewest: { points: number; seconds: number } };
}

export interface DrillResourceEntry {
  resourceId: string;
  resourceName: string;
  resourceType: string;
  verdict: DrillVerdict;
  rpoSeconds?: number;
  rtoSeconds?: number;
  rpoMet?: boolean;
  rtoMet?: boolean;
  /** With `recoveryPoint.select: 'latest-clean'`, when the search ran. */
  clean?: DrillCleanEntry;
}

/** A drill report as the history lists it. */
export interface DrillReportEntry extends DrillCounts {
  /** The base name of the report's files in drill-reports/ (`<workflowId>--<runId>`). */
  file: string;
  name: string;
  workflowId: string;
  runId: string;
  startedAt: string;
  finishedAt: string;
  /** `finishedAt` in milliseconds, for sorting and periods. */
  finishedMs: number;
  verdict: DrillVerdict;
  partial: number;
  targets: { rpoSeconds: number; rtoSeconds: number };
  resources: DrillResourceEntry[];
  /** A rotating drill's period, and every resource its scope held at that run. */
  rotation?: { withinDays: number; scopeIds?: string[] };
}

/** A file in drill-reports/ that looks like a report and is not listed, and why. */
export interface SkippedReport {
  file: string;
  reason: string;
  /** The drill's name, when the file says: its seal check still counts in that drill's chain. */
  name?: string;
}

export type ReadReport = { ok: true; report: DrillReportEntry } | { ok: false; skipped: SkippedReport };

/**
 * Reads a report's JSON at `path` and checks it is of `version` and has `schema`'s shape. Never throws for the file's
 * content: a report that cannot be read is `skipped`, with the reason and, where the file gives it, its name.
 */
export async function readReportJson<T>(
  path: string,
  file: string,
  expected: { kind: string; version: number; schema: z.ZodType<T> },
): Promise<{ ok: true; data: T; name?: string } | { ok: false; skipped: SkippedReport }> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, skipped: { file, reason: code ? `cannot be read (${code})` : 'is not JSON' } };
  }
  const fields = json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {};
  const name = typeof fields.name === 'string' ? fields.name : undefined;
  const version = fields.schemaVersion;
  if (version !== expected.version) {
    const given = version === undefined ? 'no schemaVersion' : `schemaVersion ${JSON.stringify(version)}`;
    return { ok: false, skipped: { file, reason: `${given}: only version ${expected.version} is read`, name } };
  }
  const parsed = expected.schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join('.') || '(top)'}: ${issue.message}` : 'unknown';
    const reason = `not a ${expected.kind} report of version ${expected.version} (${where})`;
    return { ok: false, skipped: { file, reason, name } };
  }
  return { ok: true, data: parsed.data, ...(name === undefined ? {} : { name }) };
}

/** Reads `<file>.json` at `path`. Never throws for the file's content: a report the history cannot read is skipped. */
export async function readDrillReport(path: string, file: string): Promise<ReadReport> {
  const read = await readReportJson(path, file, {
    kind: 'drill',
    version: HISTORY_SCHEMA_VERSION,
    schema: ReportFields,
  });
  if (!read.ok) return read;
  const r = read.data;
  const finishedMs = Date.parse(r.finishedAt);
  if (Number.isNaN(finishedMs))
    return { ok: false, skipped: { file, reason: `finishedAt ${r.finishedAt} is not a date` } };
  return {
    ok: true,
    report: {
      file,
      name: r.name,
      workflowId: r.workflowId,
      runId: r.runId,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      finishedMs,
      verdict: r.summary.verdict,
      total: r.summary.total,
      passed: r.summary.passed,
      partial: r.summary.partial ?? 0,
      failed: r.summary.failed,
      worstRpoSeconds: r.summary.worstRpoSeconds,
      worstRtoSeconds: r.summary.worstRtoSeconds,
      targets: r.targets,
      resources: r.resources.map((x) => ({
        resourceId: x.resourceId,
        resourceName: x.resourceName,
        resourceType: x.resourceType,
        verdict: x.verdict,
        rpoSeconds: x.rpoSeconds,
        rtoSeconds: x.rtoSeconds,
        rpoMet: x.rpoMet,
        rtoMet: x.rtoMet,
        ...cleanOf(x.recoveryPoint, x.cleanSearch),
      })),
      ...(r.rotation ? { rotation: r.rotation } : {}),
    },
  };
}

type ReadResource = z.infer<typeof ReportFields>['resources'][number];

/** The search a resource's report keeps: with the point restored, or as `cleanSearch` when none was clean. */
function cleanOf(
  point: ReadResource['recoveryPoint'],
  search: ReadResource['cleanSearch'],
): { clean?: DrillCleanEntry } {
  const found = point?.clean;
  if (found) {
    const { snapshotId, pointInTime } = point;
    const clean = { check: found.check, verdict: found.verdict };
    return { clean: { ...clean, point: { snapshotId, pointInTime, behindNewest: found.behindNewest } } };
  }
  return search ? { clean: { check: search.check, verdict: search.verdict } } : {};
}
