// Output folders as the runs leave them: drill reports written and sealed by the drill's own activity code, recovery
// plan reports by the plan's, posture and export files written with the runbooks' own CSV and HTML helpers.
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { evidenceCommand } from '../../cli/evidence-command';
import { STALE_COLUMNS, UNPROTECTED_COLUMNS } from '../../runbooks/posture-report/activities';
import { page, section, table, tableRow } from '../../runbooks/posture-report/html';
import { writeReport } from '../../runbooks/dr-drill/activities';
import type { DrillReport, DrillReportPaths, DrillResourceResult } from '../../runbooks/dr-drill/report';
import { recoveryPlanActivities } from '../../runbooks/recovery-plan/activities';
import type { PlanReport, PlanReportPaths } from '../../runbooks/recovery-plan/contract';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { csvRecord } from '../../runtime/csv';
import { loadOrCreateEvidenceKey, type EvidenceKey } from '../../runtime/evidence-key';
import { latestPassed, v3Report } from '../helpers/drill-reports';
import { failedPlan, passedPlan } from '../helpers/plan-reports';

const env = new MockActivityEnvironment();

export interface DrillSpec {
  name?: string;
  /** `drill-<name>-<day finished>` unless given (`.hidden`: a run whose files' names hide them). */
  workflowId?: string;
  runId: string;
  finishedAt: string;
  resources?: DrillResourceResult[];
  targets?: DrillReport['targets'];
}

/** A resource of a drill with its own figures. */
export function measured(resourceId: string, rtoSeconds: number, rpoSeconds: number, name = resourceId) {
  return { ...latestPassed, resourceId, resourceName: name, rtoSeconds, rpoSeconds } satisfies DrillResourceResult;
}

/** `days` days before now, as an ISO time. */
export const ago = (days: number): string => new Date(Date.now() - days * 86_400_000).toISOString();

/** A resource that passed with an RTO of a minute and an RPO of an hour. */
export const passed = (id: string) => measured(id, 60, 3600);

/** A resource whose restore failed. */
export const failed = (id: string): DrillResourceResult => ({
  ...passed(id),
  verdict: 'FAIL',
  reasons: ['restore failed'],
});

/** Writes and seals one drill report as the drill's activity does; returns its files' base name. */
export async function writeDrill(outputDir: string, key: EvidenceKey, spec: DrillSpec): Promise<string> {
  const name = spec.name ?? 'nightly';
  const base = v3Report(spec.resources ?? [latestPassed]);
  const report: DrillReport = {
    ...base,
    name,
    workflowId: spec.workflowId ?? `drill-${name}-${spec.finishedAt.slice(0, 10)}`,
    runId: spec.runId,
    startedAt: spec.finishedAt,
    finishedAt: spec.finishedAt,
    targets: spec.targets ?? base.targets,
  };
  const paths: DrillReportPaths = await env.run(writeReport, { outputDir, evidenceKey: key }, report, false);
  return basename(paths.json, '.json');
}

export interface PlanSpec {
  name?: string;
  runId: string;
  finishedAt: string;
  /** `passedPlan` (every step passed, RTO met) unless `failed` (a step failed, RTO missed). */
  failed?: boolean;
  /** The RTO in seconds against its target, to miss or meet it whatever the steps did. */
  rto?: { seconds: number; targetSeconds: number };
}

// writePlanReport only writes files: it never calls the service.
const noService = new Proxy(
  {},
  {
    get: () => {
      throw new Error('writePlanReport called the service');
    },
  },
) as ActivityDeps['client'];

/** The report of one plan run, from the hand-built ones, named and timed as `spec` says. */
export function planReport(spec: PlanSpec): PlanReport {
  const base = spec.failed ? failedPlan : passedPlan;
  const name = spec.name ?? base.name;
  const rto = spec.rto ? { ...base.rto, ...spec.rto, met: spec.rto.seconds <= spec.rto.targetSeconds } : base.rto;
  const took = Date.parse(base.finishedAt) - Date.parse(base.startedAt);
  return {
    ...base,
    name,
    workflowId: `plan-${name}-drill-${spec.finishedAt.slice(0, 10)}`,
    startedAt: new Date(Date.parse(spec.finishedAt) - took).toISOString(),
    runId: spec.runId,
    finishedAt: spec.finishedAt,
    rto,
  };
}

/**
 * Writes and seals one recovery plan report as the plan's activity does (its JSON, Markdown, HTML and attestations),
 * with `timestampAuthority` when given; returns its files' base name.
 */
export async function writePlan(
  outputDir: string,
  key: EvidenceKey,
  spec: PlanSpec,
  timestampAuthority?: ActivityDeps['timestampAuthority'],
): Promise<string> {
  const { schemaVersion: _version, ...report } = planReport(spec);
  const activities = recoveryPlanActivities({
    outputDir,
    evidenceKey: key,
    client: noService,
    ...(timestampAuthority ? { timestampAuthority } : {}),
  });
  const paths: PlanReportPaths = await env.run(
    (input: { report: typeof report }) => activities.writePlanReport(input),
    { report },
  );
  return basename(paths.json, '.json');
}

/** A posture report's three files, as the posture activity writes them (its columns, CSV and page helpers). */
export async function writePosture(
  outputDir: string,
  base: string,
  asOf: string,
  unprotected: { id: string; type: string; provider: string; env: string }[],
  stale: { id: string; type: string; provider: string; env: string }[],
): Promise<void> {
  const dir = join(outputDir, 'posture-reports');
  await mkdir(dir, { recursive: true });
  const row = (r: (typeof unprotected)[number], extra: string[]) => [
    r.id,
    `${r.id}-name`,
    r.type,
    r.provider,
    'eu-west-1',
    r.env,
    ...extra,
  ];
  await writeFile(
    join(dir, `${base}-unprotected.csv`),
    csvRecord(UNPROTECTED_COLUMNS) + unprotected.map((r) => csvRecord(row(r, ['acct-1', 'UNPROTECTED']))).join(''),
  );
  await writeFile(
    join(dir, `${base}-stale.csv`),
    csvRecord(STALE_COLUMNS) + stale.map((r) => csvRecord(row(r, ['PROTECTED', '', '', '']))).join(''),
  );
  const overview = table(
    ['', 'value'],
    [tableRow(['as of (service clock)', asOf]), tableRow(['resources', 100])].join(''),
    '',
  );
  await writeFile(join(dir, `${base}.html`), page('Backup posture', section('Summary', overview)));
}

/** A scratch folder with an evidence key, made before each test of a file and removed after it. */
export interface EvidenceScratch {
  readonly root: string;
  readonly key: EvidenceKey;
  /** The key's public half, as an auditor's out-of-band copy for --public-key. */
  readonly keyFile: string;
  /** The output folder the drills are written to. */
  output: () => string;
  /** What the commands printed with console.log (captured, not shown). */
  printed: () => string;
  clearPrinted: () => void;
  /** `evidence pack` of February to 10 April 2026 of the output folder into `out`. */
  pack: (out: string, ...extra: string[]) => Promise<void>;
}

/** Registers the hooks that make and remove an EvidenceScratch around each test: call it at the top of a test file. */
export function evidenceScratchEachTest(prefix: string): EvidenceScratch {
  let current: { root: string; key: EvidenceKey; keyFile: string; log: jest.SpyInstance } | undefined;
  const now = () => {
    if (!current) throw new Error('the scratch folder exists only while a test runs');
    return current;
  };
  beforeEach(async () => {
    const root = await mkdtemp(join(tmpdir(), prefix));
    const key = await loadOrCreateEvidenceKey(join(root, 'data', 'evidence-signing-key.pem'));
    const keyFile = join(root, 'public.pem');
    await writeFile(keyFile, key.publicKeyPem);
    current = { root, key, keyFile, log: jest.spyOn(console, 'log').mockImplementation(() => undefined) };
  });
  afterEach(async () => {
    current?.log.mockRestore();
    if (current) await rm(current.root, { recursive: true, force: true });
    current = undefined;
  });
  const output = () => join(now().root, 'output');
  return {
    get root() {
      return now().root;
    },
    get key() {
      return now().key;
    },
    get keyFile() {
      return now().keyFile;
    },
    output,
    printed: () =>
      now()
        .log.mock.calls.map((c: unknown[]) => String(c[0]))
        .join('\n'),
    clearPrinted: () => now().log.mockClear(),
    pack: async (out, ...extra) => {
      const period = ['--from', '2026-02-01', '--to', '2026-04-10'];
      await evidenceCommand(['pack', ...period, '--dir', output(), '--out', out, ...extra]);
    },
  };
}
