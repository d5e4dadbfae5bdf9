import { formatAge } from '../operator/progress';
import type { ConsoleRun } from './data';
import { markup, type Html } from './html';
import { progressBar, table, time } from './layout';

/** Where the Temporal Web UI shows a run, or undefined when no UI is known. */
export function temporalUiLink(
  uiBaseUrl: string | undefined,
  namespace: string,
  run: { workflowId: string; runId: string },
): string | undefined {
  if (!uiBaseUrl) return undefined;
  const path = [namespace, 'workflows', run.workflowId, run.runId].map(encodeURIComponent);
  return `${uiBaseUrl.replace(/\/+$/, '')}/namespaces/${path[0]}/${path[1]}/${path[2]}/${path[3]}/history`;
}

function phaseCell(run: ConsoleRun): Html {
  const status = run.status;
  if (run.state !== 'RUNNING') return markup`<span class="muted">–</span>`;
  if (!status) return markup`<span class="muted">no worker answered</span>`;
  const about = status.waitingFor ?? status.detail;
  return markup`${status.phase}${about ? markup`<br /><span class="muted">${about}</span>` : ''}`;
}

function progressCell(run: ConsoleRun): Html {
  const drill = run.status?.drill;
  if (drill) return progressBar(drill.done, drill.total, 'resources');
  const progress = run.status?.progress;
  return progress ? progressBar(progress.done, progress.total, progress.unit) : markup``;
}

function took(run: ConsoleRun, now: Date): string {
  const end = run.closeTime ? Date.parse(run.closeTime) : now.getTime();
  return formatAge(Math.max(0, Math.round((end - Date.parse(run.startTime)) / 1000)));
}

export interface RunsView {
  runs: ConsoleRun[];
  namespace: string;
  uiBaseUrl?: string;
  now?: Date;
}

export function runsBody({ runs, namespace, uiBaseUrl, now = new Date() }: RunsView): Html {
  if (runs.length === 0) return markup`<p>No runbook has run in namespace <code>${namespace}</code> yet.</p>`;
  const open = runs.filter((r) => r.state === 'RUNNING').length;
  const rows = runs.map((run) => {
    const link = temporalUiLink(uiBaseUrl, namespace, run);
    const id = link ? markup`<a href="${link}">${run.workflowId}</a>` : markup`<code>${run.workflowId}</code>`;
    return markup`<tr>
      <td>${id}</td>
      <td>${run.runbook}</td>
      <td>${run.resource ?? ''}</td>
      <td class="state-${run.state}">
        ${run.state}${run.approvalStatus ? markup`<br /><span class="muted">${run.approvalStatus}</span>` : ''}
      </td>
      <td>${phaseCell(run)}</td>
      <td>${progressCell(run)}</td>
      <td>${time(run.startTime)}</td>
      <td class="num">${took(run, now)}</td>
    </tr>`;
  });
  return markup`<p class="muted">
      ${open} in flight, ${runs.length - open} closed, newest first, from Temporal
      visibility${
        uiBaseUrl ? '' : ' (set RUNBOOKS_TEMPORAL_UI_URL or --temporal-ui to link runs to the Temporal Web UI)'
      }.
    </p>
    ${table(['Workflow ID', 'Runbook', 'Resource', 'State', 'Phase', 'Progress', 'Started', 'Took'], rows)}`;
}
