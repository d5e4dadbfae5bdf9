import { rpoNote } from './render-html';
import { checkText, type DrillReport, type DrillResourceResult } from './report';

const seconds = (s: number | undefined) => (s === undefined ? 'n/a' : `${Math.round(s)} s`);
const mark = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'met' : 'MISSED');

/**
 * Text from outside (names, error messages, IDs) as inert Markdown: on one line, so that it cannot end a table row or
 * a list item; with Markdown's own punctuation backslash-escaped, so that it cannot format, link or split a cell; and
 * with `<`, `>` and `&` as entities, so that HTML in a resource name shows as text instead of passing through.
 */
export function markdownText(value: string): string {
  return (
    value
      // Line and paragraph separators, and any other control character.
      .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
      // What formats, links or splits inline text; a value never starts a line, so list and heading marks are inert.
      .replace(/[\\`*_[\]|~]/g, '\\$&')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
  );
}

export function renderMarkdown(report: DrillReport): string {
  const s = report.summary;
  const t = markdownText;
  const lines = [
    `# Disaster-recovery drill: ${t(report.name)}`,
    '',
    `- Drill started: ${t(report.startedAt)}`,
    `- Drill finished: ${t(report.finishedAt)}`,
    `- Workflow: ${t(report.workflowId)} (run ${t(report.runId)})`,
    `- Targets: RPO ${seconds(report.targets.rpoSeconds)}, RTO ${seconds(report.targets.rtoSeconds)}`,
    `- Verdict: **${s.verdict}** (${s.passed} passed, ${s.failed} failed of ${s.total})`,
    '',
    '- RPO: drill start minus the point in time of the newest snapshot taken before the drill began',
    '',
    '| Resource | Type | Snapshot point in time | RPO | RPO measured against | RTO | Check | Backup job | Restore job | Verdict |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...report.resources.map(row),
    '',
  ];
  const failures = report.resources.filter((r) => r.verdict === 'FAIL');
  if (failures.length > 0) {
    lines.push('## Failures', '', ...failures.map((r) => `- ${t(r.resourceName)}: ${t(r.reasons.join('; '))}`), '');
  }
  return lines.join('\n');
}

function row(r: DrillResourceResult): string {
  const check = checkText(r.check);
  const cells = [
    r.resourceName,
    r.resourceType,
    r.snapshotPointInTime ?? 'n/a',
    `${seconds(r.rpoSeconds)} (${mark(r.rpoMet)})`,
    rpoNote(r),
    `${seconds(r.rtoSeconds)} (${mark(r.rtoMet)})`,
    check,
    r.backupJobId ?? (r.snapshotReused ? 'reused snapshot' : 'n/a'),
    r.restoreJobId ?? 'n/a',
    r.verdict,
  ];
  return `| ${cells.map(markdownText).join(' | ')} |`;
}
