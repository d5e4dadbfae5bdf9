// Workflow-ID completion against a real dev server: `status`, `cancel` and `nudge` offer the running runbooks' IDs,
// `drill validate` the running drills' only; closed runs and other workflow types are not offered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { runCliFromSource, writeCliExecutable } from '../helpers/cli-from-source';
import { bashCompletes, completionScript } from '../helpers/shell-completion';
import { startTestEnv } from '../helpers/temporal';

// No worker polls this queue: the runs stay open.
const TASK_QUEUE = 'completion-test-no-worker';
const DRILL = 'cmpl-drill-nightly';
const EXPORT = 'cmpl-export-daily';
const CLOSED = 'cmpl-export-closed';
const OTHER = 'cmpl-other-type';
// Bash breaks words at ':' by default; the script completes such an ID all the same.
const WITH_COLON = 'cmpl-restore:vm-1';

let env: TestWorkflowEnvironment;
let bin: string;
let cliEnv: Record<string, string | undefined>;

beforeAll(async () => {
  env = await startTestEnv();
  bin = mkdtempSync(join(tmpdir(), 'completion-bin-'));
  writeCliExecutable(bin);
  const clean = Object.entries(process.env).filter(([k]) => !k.startsWith('TEMPORAL_') || k.endsWith('_PATH'));
  cliEnv = {
    ...Object.fromEntries(clean),
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
  };
  const start = (type: string, workflowId: string) =>
    env.client.workflow.start(type, { taskQueue: TASK_QUEUE, workflowId, args: [] });
  await start('drDrill', DRILL);
  await start('costExport', EXPORT);
  await start('someOtherWorkflow', OTHER);
  await start('approvalGatedRestore', WITH_COLON);
  await (await start('costExport', CLOSED)).terminate('closed before completion is asked');
  // Visibility follows the starts; wait until the list shows all five.
  for (;;) {
    const seen: string[] = [];
    for await (const run of env.client.workflow.list({ query: `TaskQueue = '${TASK_QUEUE}'` })) {
      if (run.workflowId !== CLOSED || run.status.name === 'TERMINATED') seen.push(run.workflowId);
    }
    if (seen.length >= 5) break;
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);

afterAll(async () => {
  await env?.teardown();
  if (bin) rmSync(bin, { recursive: true, force: true });
});

test('--workflow-ids lists the running runbooks, and --runbook narrows them', () => {
  const all = runCliFromSource(['completion', '--workflow-ids'], cliEnv);
  expect(all.stderr).toBe('');
  expect(all.stdout.split('\n').filter(Boolean).sort()).toEqual([DRILL, EXPORT, WITH_COLON].sort());
  const drills = runCliFromSource(['completion', '--workflow-ids', '--runbook', 'drDrill'], cliEnv);
  expect(drills.stdout.split('\n').filter(Boolean)).toEqual([DRILL]);
});

test('bash completes open workflow IDs for status, cancel and nudge, and drill IDs for drill validate', () => {
  const script = completionScript('bash', cliEnv);
  for (const command of ['status', 'cancel', 'nudge']) {
    expect({ command, offered: bashCompletes(script, ['runbooks', command, 'cmpl-'], cliEnv).sort() }).toEqual({
      command,
      offered: [DRILL, EXPORT, WITH_COLON].sort(),
    });
  }
  expect(bashCompletes(script, ['runbooks', 'status', '--watch', 'cmpl-d'], cliEnv)).toEqual([DRILL]);
  expect(bashCompletes(script, ['runbooks', 'drill', 'validate', 'cmpl-'], cliEnv)).toEqual([DRILL]);
  // `runbooks cancel cmpl-restore:v`, as bash splits it: what replaces the word after the ':'.
  expect(bashCompletes(script, ['runbooks', 'cancel', 'cmpl-restore', ':', 'v'], cliEnv)).toEqual(['vm-1']);
});
