// Approvals wait for days, so runs started on older code meet today's workflow code: every recorded history
// (test/fixtures/histories, from `npm run histories:record`) must replay on it. No Temporal server is needed.
// A failure here means the change needs `patched()`: see "Changing a workflow safely" in docs/development.md.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundle } from '@temporalio/worker';
import { batchWorkflowId, type DrillBatchInput } from '../../runbooks/dr-drill/fan-out-contract';
import { RUNBOOK_NAMES } from '../../runbooks/registry';
import { workflowTraceSinks } from '../../worker/tracing';
import { bundleWorkflows, installQuietRuntime } from '../helpers/temporal';

const HISTORIES_DIR = join(__dirname, '..', 'fixtures', 'histories');

interface Recorded {
  file: string;
  history: History;
  workflowType: string;
}

/** The histories of this code (the folder) and of earlier code (its subfolders), named by their path inside it. */
function loadHistories(): Recorded[] {
  const files = readdirSync(HISTORIES_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .sort();
  return files.map((file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(join(HISTORIES_DIR, file), 'utf8')) as unknown);
    const workflowType = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
    if (!workflowType) throw new Error(`${file} does not start with WorkflowExecutionStarted`);
    return { file, history, workflowType };
  });
}

/**
 * The workflow ID a drill or a batch ran with, where its commands depend on it: a drill names its batches after it
 * (`<drill>--<run>--batch-<n>`, read from the batches it started); a batch names its snapshot slots after its own ID,
 * made from its input.
 */
function ranAs(history: History): string | undefined {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (started?.workflowType?.name === 'drDrillBatch') {
    const data = started.input?.payloads?.[0]?.data;
    const input = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as DrillBatchInput) : undefined;
    return input && batchWorkflowId(input.drillWorkflowId, input.drillRunId, input.batch);
  }
  for (const event of history.events ?? []) {
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    const drill = child?.workflowId ? /^(.*)--[^-]{8}--batch-\d{4}$/.exec(child.workflowId)?.[1] : undefined;
    if (drill) return drill;
    // A recovery plan names its restores `<plan run>--<step>--<resource>`, its clean-point searches
    // `<plan run>--clean--<step>--<resource>`.
    if (started?.workflowType?.name === 'recoveryPlan' && child?.workflowId) {
      const data = child.input?.payloads?.[0]?.data;
      const { resourceId = '' } = data
        ? (JSON.parse(Buffer.from(data).toString('utf8')) as { resourceId?: string })
        : {};
      const planData = started.input?.payloads?.[0]?.data;
      const steps = planData
        ? (JSON.parse(Buffer.from(planData).toString('utf8')) as { plan: { steps: { id: string }[] } }).plan.steps
        : [];
      const withStep = child.workflowId.slice(0, -`--${resourceId}`.length);
      const step = steps.map((s) => s.id).find((id) => withStep.endsWith(`--${id}`)) ?? '';
      const planRun = withStep.slice(0, -`--${step}`.length);
      return child.workflowType?.name === 'cleanPoint' ? planRun.slice(0, -'--clean'.length) : planRun;
    }
  }
  return undefined;
}

let recorded: Recorded[];
let bundle: WorkflowBundle;

beforeAll(async () => {
  installQuietRuntime();
  recorded = loadHistories();
  bundle = await bundleWorkflows(require.resolve('../../runbooks/workflows'));
});

test('the fixture folder holds recorded histories', () => {
  expect(recorded.length).toBeGreaterThan(0);
});

test('every runbook in the registry has a history recorded from this code', () => {
  const recordedTypes = new Set(recorded.filter((r) => !r.file.includes('/')).map((r) => r.workflowType));
  expect(RUNBOOK_NAMES.filter((name) => !recordedTypes.has(name))).toEqual([]);
});

test('every recorded history replays on the current workflow code', async () => {
  expect(recorded.length).toBeGreaterThan(0);
  // The file name stands in for the workflow ID, so that a failure names its fixture; a drill that started batches
  // replays under the ID it ran with, which it named them after.
  const histories = recorded.map(({ file, history }) => ({ workflowId: ranAs(history) ?? file, history }));
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories(
    // The bundle's tracing interceptors export through this sink, as on the worker.
    { workflowBundle: bundle, sinks: workflowTraceSinks() },
    histories,
  )) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${result.error.name}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(recorded.length);
});
