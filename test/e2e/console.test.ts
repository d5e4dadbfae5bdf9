// `runbooks serve` on a real dev server, simulator and worker, over real HTTP: a restore waiting for its second
// approval is listed on the Runs and Approvals pages (its workflow ID, holding `<script>`, escaped); a forged nudge is
// refused and sends no signal; the page's own form, posted with its CSRF token, nudges the run, which then sees the
// first approval at once and shows 1/2 in its status. A real drill's sealed report shows on the Drills page, verified.
import { randomUUID } from 'node:crypto';
import { statusQuery } from '../../contracts';
import type { RunningConsole } from '../../console/serve-command';
import { approvalGatedRestore } from '../../runbooks/workflows';
import {
  APPROVAL,
  bucketDestination,
  consoleOf,
  drillOfOne,
  eventually,
  nudgesOf,
  restoreSuite,
  seededVmWithSnapshot,
  waitingRequestId,
} from './helpers';

const { fx, target } = restoreSuite({ outcomes: {} });
let web: RunningConsole;

beforeAll(async () => {
  web = await consoleOf(fx);
});
afterAll(() => web?.close());

const get = (path: string) => fetch(`${web.url}${path}`, { redirect: 'manual' });

function postNudge(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${web.url}/approvals/nudge`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

test('a waiting restore is listed, escaped; a forged nudge is refused; the page nudges it with its CSRF token', async () => {
  await fx.control.addPolicy({ requiredApprovals: 2, approvalWindowHours: 24, executionWindowHours: 6 });
  const workflowId = `console-<script>alert(1)</script>-${randomUUID()}`;
  const escaped = workflowId.replace('<script>', '&lt;script&gt;').replace('</script>', '&lt;/script&gt;');
  const handle = await fx.env.client.workflow.start(approvalGatedRestore, {
    taskQueue: fx.worker.taskQueue,
    workflowId,
    args: [{ ...target, kind: 'bucket', destination: bucketDestination('restored-objects', 'console/') }],
  });
  const requestId = await waitingRequestId(handle);

  // Visibility catches up with the search attribute shortly after it is set.
  const approvals = await eventually('the run on the Approvals page', async () => {
    const body = await (await get('/approvals')).text();
    return body.includes(escaped) && body;
  });
  expect(approvals).not.toContain('<script>');
  expect(approvals).toContain(requestId);
  expect(approvals).toContain('0/2 approvals');
  const csrf = /name="csrf" value="([^"]+)"/.exec(approvals)?.[1] ?? '';
  expect(csrf).not.toBe('');

  const runs = await (await get('/runs')).text();
  expect(runs).toContain(escaped);
  expect(runs).not.toContain('<script>');
  expect(runs).toContain('waiting for approval');
  expect(runs).toContain(`/workflows/${encodeURIComponent(workflowId)}/${handle.firstExecutionRunId}/history`);

  // The first reviewer approves; the run would see it only at its next scheduled look.
  await fx.control.approve(requestId, { ...APPROVAL, reviewerEmail: 'first@example.com' });

  const forged = [
    await postNudge({ workflowId }),
    await postNudge({ workflowId, csrf: 'x'.repeat(csrf.length) }),
    await postNudge({ workflowId, csrf }, { origin: 'https://evil.example' }),
  ];
  expect(forged.map((r) => r.status)).toEqual([403, 403, 403]);
  expect(await nudgesOf(handle)).toBe(0);

  const nudged = await postNudge({ workflowId, csrf }, { origin: web.url });
  expect(nudged.status).toBe(303);
  expect(nudged.headers.get('location')).toBe('/approvals?nudged=1');
  await eventually("the nudge in the run's history", async () => (await nudgesOf(handle)) === 1);
  const status = await eventually('the nudged run to see the first approval', async () => {
    const s = await handle.query(statusQuery);
    return s.approval?.approvals.current === 1 && s;
  });
  expect(status.phase).toBe('waiting for approval');
  expect(status.approval).toMatchObject({ requestId, approvals: { current: 1, required: 2 } });

  // A run that does not wait for approval is not nudged from the console.
  await fx.control.approve(requestId, { ...APPROVAL, reviewerEmail: 'second@example.com' });
  await postNudge({ workflowId, csrf }, { origin: web.url });
  await handle.result();
  await eventually(
    'the run to leave the Approvals page',
    async () => !(await (await get('/approvals')).text()).includes(escaped),
  );
  const late = await postNudge({ workflowId, csrf }, { origin: web.url });
  expect(late.status).toBe(409);
});

test('a real drill shows on the Drills page with its verdict, its seal verified and one point per chart', async () => {
  const { name, handle, result } = await drillOfOne(fx, seededVmWithSnapshot(fx).id, 'console');

  const page = await (await get('/drills')).text();
  const row = [...page.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .map((m) => m[1] ?? '')
    .find((r) => r.includes(handle.workflowId));
  expect(row).toBeDefined();
  expect(row).toContain(`verdict-${result.summary.verdict}`);
  expect(row).toContain('verified');
  const chart = new RegExp(`<svg[^>]*data-chart="rto-trend"[\\s\\S]*?<\\/svg>`, 'g');
  const charts = [...page.matchAll(chart)]
    .map((m) => m[0])
    .filter((svg) => svg.includes(handle.workflowId) || svg.includes(name));
  expect(charts).toHaveLength(1);
  expect(charts[0]?.match(/<circle class="point"/g)).toHaveLength(1);
});
