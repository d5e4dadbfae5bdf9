import { formatAge } from '../operator/progress';
import type { WaitingApproval } from '../operator/output-shapes';
import { markup, type Html } from './html';
import { progressBar, table, time } from './layout';

export interface ApprovalsView {
  waiting: WaitingApproval[];
  /** The CSRF token every nudge form carries. */
  csrf: string;
  /** What the last action did, said once after its redirect. */
  notice?: Html;
}

function deadline(w: WaitingApproval): Html {
  if (w.executionDeadline) return time(w.executionDeadline);
  if (w.executionWindowHours !== undefined) return markup`approval + ${w.executionWindowHours}h`;
  return markup`<span class="muted">?</span>`;
}

export function approvalsBody({ waiting, csrf, notice }: ApprovalsView): Html {
  const header = notice ? markup`<div class="notice" role="status">${notice}</div>` : '';
  if (waiting.length === 0)
    return markup`${header}
      <p>No restore waits for reviewers.</p>`;
  const rows = waiting.map(
    (w) =>
      markup`<tr>
        <td><code>${w.workflowId}</code></td>
        <td>${w.runbook}</td>
        <td>${w.requestId ?? '?'}</td>
        <td class="num">${w.ageSeconds === undefined ? '?' : formatAge(w.ageSeconds)}</td>
        <td>${w.approvals ? progressBar(w.approvals.current, w.approvals.required, 'approvals') : '?'}</td>
        <td>${time(w.approvalDeadline)}</td>
        <td>${deadline(w)}</td>
        <td>
          <form class="inline" method="post" action="/approvals/nudge">
            <input type="hidden" name="csrf" value="${csrf}" />
            <input type="hidden" name="workflowId" value="${w.workflowId}" />
            <button type="submit" aria-label="Nudge ${w.workflowId}">Nudge</button>
          </form>
        </td>
      </tr>`,
  );
  const unanswered = waiting.some((w) => !w.answered)
    ? markup`<p class="muted">?: no worker answered the status query of that run.</p>`
    : '';
  return markup`${header}
    <p class="muted">
      Restores whose action request waits for reviewers, oldest first. A nudge makes the run look at its request now
      instead of at its next scheduled look.
    </p>
    ${table(
      ['Workflow ID', 'Runbook', 'Request', 'Age', 'Approvals', 'Approve before', 'Execute before', 'Action'],
      rows,
    )}
    ${unanswered}`;
}
