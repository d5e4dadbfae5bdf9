import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DrillReport, DrillResourceResult } from './report';
import type { ActivityDeps } from '../../runtime/activity-deps';
import { exportPath } from '../../runtime/export-file';

export function reportActivities({ outputDir }: ActivityDeps) {
  return {
    /** Writes the drill's evidence as JSON (for machines) and Markdown (for auditors), each atomically. */
    async writeDrillReport(input: {
      report: DrillReport;
      baseName: string;
    }): Promise<{ json: string; markdown: string }> {
      const json = exportPath(outputDir, 'drill-reports', `${input.baseName}.json`);
      const markdown = exportPath(outputDir, 'drill-reports', `${input.baseName}.md`);
      await mkdir(join(outputDir, 'drill-reports'), { recursive: true });
      await atomicWrite(json, JSON.stringify(input.report, null, 2) + '\n');
      await atomicWrite(markdown, renderMarkdown(input.report));
      return { json, markdown };
    },
  };
}

async function atomicWrite(path: string, text: string): Promise<void> {
  await writeFile(`${path}.partial`, text, 'utf8');
  await rename(`${path}.partial`, path);
}

const seconds = (s: number | undefined) => (s === undefined ? 'n/a' : `${Math.round(s)} s`);
const mark = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'met' : 'MISSED');

export function renderMarkdown(report: DrillReport): string {
  const s = report.summary;
  const lines = [
    `# Disaster-recovery drill: ${report.name}`,
    '',
    `- Drill started: ${report.startedAt}`,
    `- Drill finished: ${report.finishedAt}`,
    `- Workflow: ${report.workflowId} (run ${report.runId})`,
    `- Targets: RPO ${seconds(report.targets.rpoSeconds)}, RTO ${seconds(report.targets.rtoSeconds)}`,
    `- Verdict: **${s.verdict}** (${s.passed} passed, ${s.failed} failed of ${s.total})`,
    '',
    '| Resource | Type | Snapshot point in time | RPO | RTO | Check | Backup job | Restore job | Verdict |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...report.resources.map(row),
    '',
  ];
  const failures = report.resources.filter((r) => r.verdict === 'FAIL');
  if (failures.length > 0) {
    lines.push('## Failures', '', ...failures.map((r) => `- ${r.resourceName}: ${r.reasons.join('; ')}`), '');
  }
  return lines.join('\n');
}

function row(r: DrillResourceResult): string {
  const check = r.check ? `${r.check.passed ? 'passed' : 'FAILED'} (${r.check.detail})` : 'none';
  return [
    r.resourceName,
    r.resourceType,
    r.snapshotPointInTime ?? 'n/a',
    `${seconds(r.rpoSeconds)} (${mark(r.rpoMet)})`,
    `${seconds(r.rtoSeconds)} (${mark(r.rtoMet)})`,
    check,
    r.backupJobId ?? (r.snapshotReused ? 'reused snapshot' : 'n/a'),
    r.restoreJobId ?? 'n/a',
    r.verdict,
  ]
    .map((cell) => cell.replace(/\|/g, '\\|'))
    .join(' | ')
    .replace(/^/, '| ')
    .concat(' |');
}
