// How often a rotating drill runs, when a schedule started it: the drill's selection activity reads the schedule's
// next start times (a real schedule on a real server), and says nothing for a run no schedule started or whose
// schedule is gone. The runs never execute: the activity needs only their start and their schedule.
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { scheduleCadenceMs } from '../../runbooks/dr-drill/parts';
import { eventually } from './helpers';
import { testEnvForSuite } from '../helpers/temporal';

const env = testEnvForSuite();
const HOUR_MS = 3_600_000;

/** The ID of the run a schedule every `everyMs` started when triggered, on a queue no worker polls. */
async function scheduledRun(scheduleId: string, everyMs: number): Promise<string> {
  const schedule = await env().client.schedule.create({
    scheduleId,
    spec: { intervals: [{ every: everyMs }] },
    action: { type: 'startWorkflow', workflowType: 'drDrill', args: [], taskQueue: `nobody-${randomUUID()}` },
  });
  await schedule.trigger();
  return eventually('the triggered run', async () => {
    const { recentActions } = (await schedule.describe()).info;
    return recentActions[0]?.action.workflow.workflowId;
  });
}

const cadenceOf = (workflowId: string) =>
  new MockActivityEnvironment({}, { client: env().client }).run(scheduleCadenceMs, workflowId);

test("a run its schedule started: the schedule's spacing; a run started by hand, or whose schedule is gone: none", async () => {
  const scheduleId = `rotation-${randomUUID()}`;
  const workflowId = await scheduledRun(scheduleId, 6 * HOUR_MS);
  expect(await cadenceOf(workflowId)).toBe(6 * HOUR_MS);

  const byHand = await env().client.workflow.start('drDrill', {
    taskQueue: `nobody-${randomUUID()}`,
    workflowId: `by-hand-${randomUUID()}`,
    args: [],
  });
  expect(await cadenceOf(byHand.workflowId)).toBeUndefined();

  await env().client.schedule.getHandle(scheduleId).delete();
  expect(await cadenceOf(workflowId)).toBeUndefined();
}, 60_000);
