// A recovery plan's report as Markdown, and the words the HTML page (./render-html.ts) shares with it, so that both
// say the same thing the same way.
import { markdownText as t } from '../dr-drill/render-markdown';
import { PLAN_PHASES, type CommonPoint, type PlanPhase, type PlanReport, type PlanStepResult } from './contract';

/** Seconds for people: "45 s", "2 min 05 s", "1 h 02 min", "2 d 03 h". */
export function humanDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return 'n/a';
  const s = Math.round(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 === 0 ? `${s / 60} min` : `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
  return `${Math.floor(s / 86_400)} d ${pad(Math.floor((s % 86_400) / 3600))} h`;
}

/** A duration with its exact seconds, for figures compared with a target: "1 h 15 min (4500 s)". */
export function exactDuration(seconds: number): string {
  return seconds < 60 ? humanDuration(seconds) : `${humanDuration(seconds)} (${Math.round(seconds)} s)`;
}

/** A time as ISO 8601 in UTC, whatever offset the report wrote it with; whole seconds without `.000`. */
export function isoUtc(time: string | undefined): string {
  if (time === undefined) return '—';
  const ms = Date.parse(time);
  // Not a time: shown as it is, so that the report never hides what it holds.
  return Number.isNaN(ms) ? time : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Seconds from one time to another, when both are times. */
export function secondsBetween(from: string | undefined, to: string | undefined): number | undefined {
  if (from === undefined || to === undefined) return undefined;
  const s = (Date.parse(to) - Date.parse(from)) / 1000;
  return Number.isNaN(s) ? undefined : s;
}

/** One line of a breakdown: a phase or a step, and its seconds. */
export interface RtoPart {
  label: string;
  seconds: number;
}

export const BETWEEN_LABEL = 'waiting between steps';

/** The critical path's seconds by phase, in the phases' order; phases it spent no time in are left out. */
export function rtoPhaseParts(report: PlanReport): RtoPart[] {
  const parts: RtoPart[] = PLAN_PHASES.map((phase) => ({ label: phase, seconds: report.rto.byPhase[phase] ?? 0 }));
  parts.push({ label: BETWEEN_LABEL, seconds: report.rto.byPhase.between ?? 0 });
  return parts.filter((p) => p.seconds > 0);
}

/** The critical path's seconds by step, then the waits between them: `byStep` counts each step's own span only. */
export function rtoStepParts(report: PlanReport): RtoPart[] {
  const parts = report.rto.byStep.map((s) => ({ label: s.stepId, seconds: s.seconds }));
  const between = report.rto.byPhase.between ?? 0;
  return between > 0 ? [...parts, { label: BETWEEN_LABEL, seconds: between }] : parts;
}

export const partsSum = (parts: RtoPart[]) => parts.reduce((sum, p) => sum + p.seconds, 0);

/** Said when the parts do not add up to the RTO: a report that contradicts itself shows it rather than hiding it. */
export function sumMismatch(parts: RtoPart[], whole: number): string | undefined {
  const sum = partsSum(parts);
  return Math.abs(sum - whole) < 0.5
    ? undefined
    : `The parts sum to ${Math.round(sum)} s, not the RTO's ${Math.round(whole)} s.`;
}

export function rtoLine(report: PlanReport): string {
  const { rto } = report;
  return `${exactDuration(rto.seconds)} against a target of ${exactDuration(rto.targetSeconds)}: ${rto.met ? 'met' : 'MISSED'}`;
}

export const criticalPathText = (report: PlanReport) => report.rto.criticalPath.join(' → ') || 'none';

export const RTO_MEANS =
  "RTO: from the plan's start to the end of its last validation (or of its last step, with none).";
export const RPO_MEANS = "RPO: the common point's age at the plan's start, with its skew.";

export const rpoText = (report: PlanReport) =>
  report.rpoSeconds === undefined ? 'n/a (nothing restored)' : exactDuration(report.rpoSeconds);

/** The target as the plan gave it: `latest`, `latest-clean` or a time. */
export function targetText(cp: CommonPoint): string {
  return cp.target === 'latest' || cp.target === 'latest-clean' ? cp.target : isoUtc(cp.target);
}

/** With `latest-clean`: each resource's last clean point, and the search that found it. */
export function cleanPointTexts(cp: CommonPoint): string[] {
  return (cp.clean ?? []).map(
    (c) =>
      `Last clean point of ${c.resourceId} (step ${c.stepId}): ${c.snapshotId} at ${isoUtc(c.pointInTime)}, ` +
      `${c.verdict}; ${c.examined} points examined by ${c.workflowId} (check sha256 ${c.check.sha256.slice(0, 12)})`,
  );
}

export function skewText(cp: CommonPoint): string {
  const within = cp.skewSeconds <= cp.maxSkewSeconds ? 'within' : 'OVER';
  return `${humanDuration(cp.skewSeconds)} between the oldest and the newest point chosen, ${within} the bound of ${humanDuration(cp.maxSkewSeconds)}`;
}

/** A resource's name and type, from the restore step that restored it. */
export function resourceLabel(report: PlanReport, stepId: string, resourceId: string): string {
  const step = report.steps.find((s) => s.id === stepId);
  const r = step?.resources?.find((x) => x.resourceId === resourceId);
  return r ? `${r.resourceName} (${r.resourceType}, ${resourceId})` : resourceId;
}

export const modeText = (report: PlanReport) =>
  report.mode === 'drill'
    ? "drill: restored into destinations of the run's own"
    : 'recover: restored where the plan says';

/** "1 failed, 3 skipped, 4 passed of 8 steps". */
export function countsText(report: PlanReport): string {
  const n = (status: PlanStepResult['status']) => report.steps.filter((s) => s.status === status).length;
  return `${n('failed')} failed, ${n('skipped')} skipped, ${n('passed')} passed of ${report.steps.length} steps`;
}

/** The steps a failure skipped, in plan order. */
export const skippedSteps = (report: PlanReport) => report.steps.filter((s) => s.status === 'skipped').map((s) => s.id);

/** Why a failed step failed, as its result says. */
export function failureReason(report: PlanReport, stepId: string): string {
  return report.steps.find((s) => s.id === stepId)?.reason ?? 'no reason given';
}

/** A step's time by phase, in the phases' order: "approval 10 min, restore 15 min". */
export function phasesText(step: PlanStepResult): string {
  const totals = new Map<PlanPhase, number>();
  for (const p of step.phases)
    totals.set(p.phase, (totals.get(p.phase) ?? 0) + (secondsBetween(p.startedAt, p.endedAt) ?? 0));
  const parts = PLAN_PHASES.filter((phase) => totals.has(phase)).map((ph) => `${ph} ${humanDuration(totals.get(ph))}`);
  return parts.join(', ') || '—';
}

/** What a step did beyond its times, one item a line: restores, validations, who confirmed, its own target. */
export function stepDetails(step: PlanStepResult): string[] {
  const details = (step.resources ?? []).map((r) => {
    const job = r.restoreJobId ? `restore job ${r.restoreJobId}` : 'no restore job';
    const detail = r.detail ? `: ${r.detail}` : '';
    return `${r.resourceName} (${r.resourceType}, ${r.resourceId}): snapshot ${r.snapshotId} at ${isoUtc(r.pointInTime)}, ${job} ${r.status}${detail} (run ${r.workflowId})`;
  });
  for (const v of step.validations ?? [])
    details.push(`${v.resourceId} ${v.passed ? 'passed' : 'FAILED'}: ${v.detail}`);
  if (step.confirmedBy !== undefined)
    details.push(`confirmed by ${step.confirmedBy}${step.note ? `: ${step.note}` : ''}`);
  if (step.rtoTargetSeconds !== undefined) {
    const met = step.targetMet === undefined ? '' : step.targetMet ? ': met' : ': MISSED';
    details.push(`own target ${humanDuration(step.rtoTargetSeconds)}${met}`);
  }
  return details;
}

export const STEP_COLUMNS = [
  'Step',
  'Kind',
  'Status',
  'After',
  'Started',
  'Ended',
  'Duration',
  'Phases',
  'Details',
  'Reason',
] as const;

/** A step's row, in `STEP_COLUMNS` order, as plain text; Details is one cell per item (each rendering joins them). */
export function stepCells(step: PlanStepResult): { cells: string[]; details: string[] } {
  const cells = [
    step.id,
    step.kind,
    step.status === 'passed' ? 'passed' : step.status.toUpperCase(),
    step.after.join(', ') || '—',
    isoUtc(step.startedAt),
    isoUtc(step.endedAt),
    step.startedAt && step.endedAt ? humanDuration(secondsBetween(step.startedAt, step.endedAt)) : '—',
    phasesText(step),
    '',
    step.reason ?? '',
  ];
  return { cells, details: stepDetails(step) };
}

const table = (head: string[], rows: string[][]) => [
  `| ${head.join(' | ')} |`,
  `|${head.map(() => ' --- |').join('')}`,
  ...rows.map((cells) => `| ${cells.join(' | ')} |`),
];

function partsTable(title: string, first: string, parts: RtoPart[], whole: number): string[] {
  const rows = parts.map((p) => [t(p.label), humanDuration(p.seconds), String(Math.round(p.seconds))]);
  const sum = partsSum(parts);
  rows.push(['**Sum**', `**${humanDuration(sum)}**`, `**${Math.round(sum)}**`]);
  const mismatch = sumMismatch(parts, whole);
  return [`### ${title}`, '', ...table([first, 'Time', 'Seconds'], rows), '', ...(mismatch ? [mismatch, ''] : [])];
}

/** The verdict and what failed first, then the RTO and its parts, the common point, and every step in plan order. */
export function renderPlanMarkdown(report: PlanReport): string {
  const lines = [
    `# Recovery plan ${t(report.name)} (${t(report.mode)}): ${report.verdict}`,
    '',
    `**${report.verdict}**: ${countsText(report)}.`,
    '',
  ];
  if (report.verdict === 'FAIL') {
    const skipped = skippedSteps(report);
    lines.push(
      '## Failed steps',
      '',
      ...report.failedSteps.map((id) => `- **${t(id)}**: ${t(failureReason(report, id))}`),
      ...(report.failedSteps.length === 0 ? ['- none named: see the steps below'] : []),
      '',
      ...(skipped.length > 0 ? [`Skipped, as their dependencies did not pass: ${skipped.map(t).join(', ')}.`, ''] : []),
    );
  }
  lines.push(
    `- Mode: ${t(modeText(report))}`,
    `- RTO: ${rtoLine(report)}`,
    `- Critical path: ${t(criticalPathText(report))}`,
    `- RPO: ${rpoText(report)}`,
    `- Started: ${t(isoUtc(report.startedAt))}`,
    `- Finished: ${t(isoUtc(report.finishedAt))}`,
    `- Plan sha256: ${t(report.planSha256)}`,
    `- Workflow: ${t(report.workflowId)} (run ${t(report.runId)})`,
    `- Report schema: version ${report.schemaVersion}`,
    '',
    `- ${RTO_MEANS}`,
    `- ${RPO_MEANS}`,
    '',
    '## RTO',
    '',
    `${rtoLine(report)}, on the critical path ${t(criticalPathText(report))}.`,
    '',
    ...partsTable('By phase on the critical path', 'Phase', rtoPhaseParts(report), report.rto.seconds),
    ...partsTable('By step on the critical path', 'Step', rtoStepParts(report), report.rto.seconds),
    ...commonPointLines(report),
    '## Steps',
    '',
    ...table(
      [...STEP_COLUMNS],
      report.steps.map((step) => {
        const { cells, details } = stepCells(step);
        cells[STEP_COLUMNS.indexOf('Details')] = details.join('; ') || '—';
        return cells.map(t);
      }),
    ),
    '',
  );
  return lines.join('\n');
}

function commonPointLines(report: PlanReport): string[] {
  const cp = report.commonPoint;
  if (!cp) return ['## Common point in time', '', 'None: the plan restored nothing.', ''];
  return [
    '## Common point in time',
    '',
    `- Target: ${t(targetText(cp))}`,
    `- Common point: ${t(isoUtc(cp.at))}`,
    `- Skew: ${t(skewText(cp))}`,
    `- RPO: ${rpoText(report)}`,
    ...cleanPointTexts(cp).map((line) => `- ${t(line)}`),
    '',
    ...table(
      ['Resource', 'Step', 'Snapshot', 'Point in time'],
      cp.resources.map((r) =>
        [resourceLabel(report, r.stepId, r.resourceId), r.stepId, r.snapshotId, isoUtc(r.pointInTime)].map(t),
      ),
    ),
    '',
  ];
}
