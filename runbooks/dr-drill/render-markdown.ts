import { COLUMNS } from './render-html';
import type { DrillReport, DrillResourceResult } from './report';
import { countsByType, notPassedHeading, othersNote, WORST_SHOWN, worstFirst } from './report-scale';
import {
  backupJobText,
  countsText,
  NEWEST_BEFORE_MEANS,
  NEWEST_BEFORE_TITLE,
  newestBeforeText,
  pointText,
  readingOrder,
  restoreJobText,
  RPO_MEANS,
  rpoText,
  RTO_MEANS,
  rotationText,
  rtoText,
  seconds,
  validationText,
} from './report-text';

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

/** The summary first, then what did not pass and why, then every resource (those that did not pass first). */
export function renderMarkdown(report: DrillReport): string {
  const t = markdownText;
  const notPassed = readingOrder(report.resources).filter((r) => r.verdict !== 'PASS');
  const shown = notPassed.length > WORST_SHOWN ? worstFirst(report).slice(0, WORST_SHOWN) : notPassed;
  const byType = countsByType(report.resources);
  const lines = [
    `# Disaster-recovery drill: ${t(report.name)}`,
    '',
    `- Verdict: **${report.summary.verdict}** (${countsText(report.summary)})`,
    `- Drill started: ${t(report.startedAt)}`,
    `- Drill finished: ${t(report.finishedAt)}`,
    `- Workflow: ${t(report.workflowId)} (run ${t(report.runId)})`,
    `- Targets: RPO ${seconds(report.targets.rpoSeconds)}, RTO ${seconds(report.targets.rtoSeconds)}`,
    `- Worst RPO: ${seconds(report.summary.worstRpoSeconds)}; worst RTO: ${seconds(report.summary.worstRtoSeconds)}`,
    ...(report.rotation ? [`- Rotation: ${t(rotationText(report.rotation))}`] : []),
    '',
    'PASS only when every resource passed. PARTIAL: a backup or restore that ended partial; it is not counted as passed.',
    '',
    `- ${RPO_MEANS}`,
    `- ${RTO_MEANS}`,
    `- ${NEWEST_BEFORE_TITLE}: ${NEWEST_BEFORE_MEANS}`,
    '',
  ];
  if (byType.length > 0) {
    lines.push(
      '## By resource type',
      '',
      '| Type | Resources | Passed | Partial | Failed |',
      '| --- | --- | --- | --- | --- |',
      ...byType.map((c) => `| ${t(c.resourceType)} | ${c.total} | ${c.passed} | ${c.partial} | ${c.failed} |`),
      '',
    );
  }
  if (notPassed.length > 0) {
    const others = othersNote(notPassed.length);
    lines.push(
      `## ${notPassedHeading(notPassed.length)}`,
      '',
      ...shown.map((r) => `- ${r.verdict} ${t(r.resourceName)}: ${t(r.reasons.join('; ') || 'no reason given')}`),
      '',
      ...(others ? [others, ''] : []),
    );
  }
  lines.push(
    '## Resources',
    '',
    `| ${COLUMNS.join(' | ')} |`,
    `|${COLUMNS.map(() => ' --- |').join('')}`,
    ...readingOrder(report.resources).map(row),
    '',
  );
  return lines.join('\n');
}

function row(r: DrillResourceResult): string {
  const cells = [
    r.resourceName,
    r.resourceType,
    r.verdict,
    pointText(r),
    rpoText(r),
    newestBeforeText(r),
    rtoText(r),
    validationText(r),
    backupJobText(r),
    restoreJobText(r),
  ];
  return `| ${cells.map(markdownText).join(' | ')} |`;
}
