import type { RunbookStatus } from '../contracts';

/** `[#####-----]`: `done` of `total` in `width` cells, never overflowing either way. */
export function progressBar(done: number, total: number, width = 10): string {
  const ratio = total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
  const filled = Math.round(ratio * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** `[#####-----] 1/2 approvals` */
export function formatProgress(progress: NonNullable<RunbookStatus['progress']>): string {
  return `${progressBar(progress.done, progress.total)} ${progress.done}/${progress.total} ${progress.unit}`;
}

/** One line: the phase, its progress bar when it has one, and what it waits for. */
export function statusLine(status: RunbookStatus): string {
  const parts: string[] = [status.phase];
  if (status.progress) parts.push(formatProgress(status.progress));
  const about = status.waitingFor ?? status.detail;
  if (about) parts.push(`(${about})`);
  return parts.join('  ');
}

/** Several lines, for `runbooks status`. */
export function statusBlock(status: RunbookStatus): string[] {
  const lines = [`phase:       ${status.phase}`];
  if (status.progress) lines.push(`progress:    ${formatProgress(status.progress)}`);
  if (status.drill)
    lines.push(`resources:   ${drillCounts(status.drill)}`, `batches:     ${batchCounts(status.drill)}`);
  if (status.waitingFor) lines.push(`waiting for: ${status.waitingFor}`);
  if (status.detail) lines.push(`detail:      ${status.detail}`);
  if (status.warning) lines.push(`warning:     ${status.warning}`);
  lines.push(...idLines(status), `updated:     ${status.updatedAt}`);
  return lines;
}

/** The service's IDs the run worked with (request, job, query): still true once it closed. */
export function idLines(status: RunbookStatus): string[] {
  // A status from a worker older than the IDs has none.
  const ids = status.ids ?? {};
  const lines: string[] = [];
  if (ids.requestId) lines.push(`request:     ${ids.requestId}`);
  if (ids.jobId) lines.push(`job:         ${ids.jobId}`);
  if (ids.queryId) lines.push(`query:       ${ids.queryId}`);
  return lines;
}

/** A drill's resources over its batches: `120 done (3 failed), 40 running, 0 waiting for a snapshot slot, …` */
export function drillCounts(d: NonNullable<RunbookStatus['drill']>): string {
  return (
    `${d.done} done (${d.failed} failed), ${d.running} running, ${d.waitingForSlot} waiting for a snapshot slot, ` +
    `${d.waitingForVerdict} waiting for a verdict, of ${d.total}`
  );
}

function batchCounts(d: NonNullable<RunbookStatus['drill']>): string {
  return `${d.batches.done} done, ${d.batches.running} running, of ${d.batches.total}`;
}

/** `1m 05s`, `12.3 s` */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
}

/** `45s`, `12m`, `3h 05m`, `2d 4h` */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}
