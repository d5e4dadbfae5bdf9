import type { History } from '../history';
import { CONTROLS } from '../history/controls';
import { evaluateControls, evaluationText, type ControlEvaluation } from '../history/control-evaluation';
import { GATE_STATUS_TEXT } from '../history/gate';
import { markup, type Html } from './html';
import { time } from './layout';

// The Drills page by control (`/drills?by=control`): each control of the catalogue (history/controls.ts) judged on the
// output folder's drill reports by the rule of `evidence gate` over its own period, back from now, as
// `evidence oscal` and `evidence pack --by-control` judge it (history/control-evaluation.ts). Every value goes through
// `markup`.

/** The query that shows the Drills page by control, and the link to it. */
export const BY_CONTROL_QUERY = 'control';
export const BY_CONTROL_HREF = `/drills?by=${BY_CONTROL_QUERY}`;

/** The anchor of a control's section: its ID, which the catalogue keeps to letters, digits, `.`, `-` and `_`. */
const anchor = (e: ControlEvaluation) => `control-${e.control.id}`;

export function drillsByControlBody({ history, now = new Date() }: { history: History; now?: Date }): Html {
  const evaluations = evaluateControls(CONTROLS, history.drills.drills, { nowMs: now.getTime() });
  const satisfied = evaluations.filter((e) => e.satisfied).length;
  const keys =
    history.drills.keySource === 'given'
      ? markup`Seals checked against the keys given (${history.drills.keyIds.join(', ')}).`
      : markup`Seals checked against the public keys beside the reports (${history.drills.keyIds.join(', ') || 'none'}): a quick check, not an audit; give the key history for one.`;
  const rows = evaluations.map(
    (e) => markup`<tr>
<td><a href="#${anchor(e)}"><code>${e.control.id}</code></a></td>
<td>${e.control.framework} ${e.control.source.clause}<br><span class="muted">${e.control.title}</span></td>
<td>${e.period.text}</td>
<td class="${e.satisfied ? 'verdict-PASS' : 'verdict-FAIL'}">${e.satisfied ? 'satisfied' : 'not satisfied'}</td>
<td class="num">${e.satisfyingDrills.length}</td>
<td class="num">${e.gaps.length}</td>
</tr>`,
  );
  return markup`<p><a href="/drills">Drills by report</a> · by control</p>
<p class="muted">${satisfied} of ${evaluations.length} controls satisfied: a control is satisfied when every resource the drill reports name has a verified PASS within its period, back from now (the rule of <code>runbooks evidence gate</code>). Evidence for the control's testing, not compliance with it. ${keys}</p>
<table>
<thead><tr><th scope="col">Control</th><th scope="col">Source</th><th scope="col">Period</th><th scope="col">Status</th><th scope="col">Satisfying drills</th><th scope="col">Gaps</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
${evaluations.map(controlSection)}`;
}

function controlSection(e: ControlEvaluation): Html {
  const c = e.control;
  const drills = e.satisfyingDrills.map(
    (d) =>
      markup`<tr><td><code>${d.workflowId}</code><br><span class="muted">${d.file}</span></td><td>${time(d.finishedAt)}</td><td>${d.resourceIds.join(', ')}</td></tr>`,
  );
  const gaps = e.gaps.map(
    (g) =>
      markup`<tr><td>${g.resourceName ?? g.resourceId}<br><span class="muted">${g.resourceId}</span></td><td class="verdict-FAIL">${GATE_STATUS_TEXT[g.status]}</td><td>${g.reason ?? ''}</td></tr>`,
  );
  return markup`<section class="control" id="${anchor(e)}">
<h2>${c.framework} ${c.source.clause}: ${c.title} <span class="${e.satisfied ? 'verdict-PASS' : 'verdict-FAIL'}">${e.satisfied ? 'satisfied' : 'not satisfied'}</span></h2>
<p>${c.asks}</p>
<p class="muted"><code>${c.id}</code>, ${c.source.reference}. Period: ${e.period.text}, since ${time(new Date(e.period.sinceMs).toISOString())}. ${c.evidence.reviewer ? 'It asks for a review of the results too, which no report shows. ' : ''}Not shown by the reports: ${c.notShown}</p>
<p>${evaluationText(e)}</p>
<h3>Satisfying drills</h3>
${
  drills.length
    ? markup`<table><thead><tr><th scope="col">Drill</th><th scope="col">Finished</th><th scope="col">Resources it passed</th></tr></thead><tbody>
${drills}
</tbody></table>`
    : markup`<p class="muted">None within the period.</p>`
}
<h3>Gaps</h3>
${
  gaps.length
    ? markup`<table><thead><tr><th scope="col">Resource</th><th scope="col">Status</th><th scope="col">Why</th></tr></thead><tbody>
${gaps}
</tbody></table>`
    : markup`<p class="muted">None: every resource the reports name has a verified PASS within the period.</p>`
}
</section>`;
}
