// The help's examples, run as printed by the CLI from source against a dev server with a runbook worker and a simulator
// (the e2e fixture): each exits 0. Every example is either run here, in the order below (a schedule is created before
// it is described), or named with the test that runs it or why it cannot run here; a new example fails this file until
// it is one or the other. What an example writes (`> drill.json`) goes to a scratch folder, and is read from there.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliFromSourceAsync } from '../helpers/cli-from-source';
import { setupE2E, teardownE2E, type E2E } from '../e2e/helpers';
import { everyExample, invocations } from './examples';
import { serviceEnv } from '../helpers/service-env';

/** Examples not run here, each with where it is run or why it cannot be. */
const NOT_HERE: Record<string, string> = {
  'runbooks drill validate dr-drill-nightly --resource crm-bucket-02 --result fail':
    'needs a drill waiting for a verdict on crm-bucket-02: test/e2e/drill-validate.test.ts',
  "runbooks drill validate dr-drill-nightly --resource crm-bucket-02 --result pass --message 'objects listed'":
    'needs a drill waiting for a verdict on crm-bucket-02: test/e2e/drill-validate.test.ts',
  'runbooks deployment status': 'needs a Worker Deployment: test/e2e/versioning.test.ts',
  'runbooks deployment status -o json': 'needs a Worker Deployment: test/e2e/versioning.test.ts',
  'runbooks deployment promote 2026.11.25 --ramp 10': 'needs build 2026.11.25 polling: test/e2e/versioning.test.ts',
  'runbooks deployment promote 2026.11.25': 'needs build 2026.11.25 polling: test/e2e/versioning.test.ts',
  'runbooks deployment move 2026.11.18 --to 2026.11.25': 'needs both builds: test/e2e/versioning.test.ts',
  'runbooks clean-point orders-db --check orders-check.json --window 14d':
    "names the operator's database and check: test/cli/clean-point-run.test.ts runs it on a simulated one",
  'runbooks clean-point orders-db --check orders-check.json --restore-account ra-prod-01 -o json':
    "names the operator's database, check and account: test/cli/clean-point-run.test.ts runs it -o json",
  'runbooks clean-point media-bucket --validation media-validation.json --window 14d':
    "names the operator's bucket and validation: test/e2e/clean-point-validation.test.ts runs a search by restores",
  'runbooks plan start examples/plans/payments.json --wait':
    "names the operator's resources: test/e2e/recovery-plan.test.ts runs plans on simulated ones",
  'runbooks plan status plan-payments-drill-2026-11-29':
    'needs a plan run under that ID: test/e2e/recovery-plan.test.ts reads the steps of running plans',
  "runbooks plan confirm plan-payments-drill-2026-11-29 --step dns --by oncall-lead --note 'DNS moved'":
    'needs a plan waiting on its dns step: test/e2e/recovery-plan.test.ts confirms one',
  'runbooks simulator --port 8080': 'serves until Ctrl-C, on a fixed port: test/simulator/command.test.ts',
  'runbooks simulator --port 8080 --fault-rate 0.1 --fault-kinds 429':
    'serves until Ctrl-C, on a fixed port: test/simulator/command.test.ts',
  'runbooks codec-server': 'serves until Ctrl-C: test/cli/codec-server.test.ts',
  'runbooks codec-server --allow-origin https://temporal.example.com':
    'serves until Ctrl-C: test/cli/codec-server.test.ts',
  'runbooks serve': 'serves until Ctrl-C: test/e2e/console.test.ts',
  'runbooks serve --host 0.0.0.0 --token-file /run/secrets/console-token':
    'serves until Ctrl-C, with a mounted secret: test/e2e/console.test.ts',
  'runbooks evidence verify .data/output --public-key .data/evidence-signing-key.history.json':
    "reads the project's own .data: test/e2e/evidence.test.ts verifies a worker's reports",
  'runbooks evidence verify evidence-2026-q1.tar.gz --public-key .data/evidence-signing-key.history.json':
    "reads the project's own .data: test/e2e/evidence.test.ts verifies a pack",
  'runbooks evidence pack --from 2026-01-01 --to 2026-03-31 --out evidence-2026-q1.tar.gz':
    'reads RUNBOOKS_OUTPUT_DIR of a past quarter: test/e2e/evidence.test.ts packs a period',
  'runbooks evidence gate --within 30d --public-key .data/evidence-signing-key.history.json':
    "reads the project's own .data: test/cli/evidence-gate.test.ts gates sealed reports",
  'runbooks evidence gate --within 7d --public-key .data/evidence-signing-key.history.json -o json':
    "reads the project's own .data: test/cli/evidence-gate.test.ts checks the JSON document",
  'runbooks evidence gate --plan payments --within 30d --public-key .data/evidence-signing-key.history.json':
    "reads the project's own .data: test/cli/evidence-gate-plans.test.ts gates sealed plan reports",
  'runbooks evidence oscal --public-key .data/evidence-signing-key.history.json --out assessment-results.json':
    "reads the project's own .data: test/cli/evidence-oscal.test.ts writes the document, and " +
    'test/cli/evidence-oscal-validate.test.ts validates it',
  'runbooks evidence score --dir .data/output':
    "reads the project's own .data: test/cli/coverage-command.test.ts scores sealed reports",
  'runbooks evidence score --dir evidence-2026-q1.tar.gz --within 90d -o json':
    'reads a pack of a past quarter: test/cli/coverage-command.test.ts scores a pack and its unpacked folder',
  'runbooks coverage --dir .data/output':
    "reads the project's own .data: test/cli/coverage-command.test.ts lists sealed reports' resources",
  'runbooks coverage --dir .data/output --within 30d --drill nightly -o json':
    "reads the project's own .data: test/cli/coverage-command.test.ts checks the JSON document of one drill",
  'runbooks evidence key show': "reads the project's own .data key: test/cli/exit-codes.test.ts shows a missing one",
  'runbooks evidence key rotate': "would rotate the project's own .data key: test/e2e/rotation.test.ts",
  'runbooks demo': 'test/cli/demo-output.test.ts',
  'runbooks demo --dialect public': 'the demo in the public dialect: test/cli/demo-dialect.test.ts',
  'runbooks demo --serve': 'serves until Ctrl-C: test/e2e/demo-console.test.ts',
  'runbooks doctor': "checks this machine's configuration: test/cli/doctor.test.ts",
  'runbooks doctor --restore-account ra-prod-01 --json': 'names a real restore account: test/cli/doctor.test.ts',
};

/** Examples run here, in this order, each with what it needs first. */
const RUN_HERE: [string, (() => Promise<void>)?][] = [
  ['runbooks inputs costExport > costExport.schema.json'],
  ['runbooks inputs drDrill --example --discover > drill.json'],
  ['runbooks inputs drDrill --example --discover > drill.json && runbooks start drDrill --input drill.json --wait'],
  [`runbooks start costExport --input '{"window":"previous-day"}'`],
  ['runbooks plan validate examples/plans/payments.json'],
  ['runbooks list'],
  ['runbooks list --runbook drDrill --limit 5'],
  ['runbooks approvals'],
  ['runbooks approvals -o json'],
  // A run under the ID the examples name, closed by the time --watch looks.
  ['runbooks status dr-drill-nightly --watch', () => finishedRun('dr-drill-nightly')],
  ['runbooks status dr-drill-nightly -o json'],
  // Open runs under the ID: no worker polls their queue.
  ['runbooks nudge restore-orders-db-2026-11-25', () => openRun('restore-orders-db-2026-11-25')],
  ['runbooks cancel restore-orders-db-2026-11-25'],
  [
    `runbooks schedule create nightly-cost-export --runbook costExport --cron '0 2 * * *' --input '{"window":"previous-day"}'`,
  ],
  [
    "runbooks schedule create weekly-drill --runbook drDrill --cron '0 3 * * 1' --input examples/drDrill.json --timezone Europe/Paris",
  ],
  ['runbooks schedule list'],
  ['runbooks schedule list -o json'],
  ['runbooks schedule describe nightly-cost-export'],
  ['runbooks schedule describe weekly-drill'],
  ['runbooks schedule describe weekly-drill -o json'],
  ["runbooks schedule pause weekly-drill --note 'restore account in maintenance'"],
  ['runbooks schedule unpause weekly-drill'],
  ['runbooks schedule trigger nightly-cost-export'],
  ['runbooks schedule trigger weekly-drill --overlap allow-all'],
  ['runbooks schedule backfill nightly-cost-export --from 2026-11-20 --to 2026-11-22'],
  ['runbooks schedule delete weekly-drill'],
  ['source <(runbooks completion bash)  # bash, this shell; add it to ~/.bashrc'],
  ['runbooks completion fish > ~/.config/fish/completions/runbooks.fish'],
];

let fx: E2E;
let scratch: string;
let cliEnv: Record<string, string | undefined>;

beforeAll(async () => {
  fx = await setupE2E();
  scratch = mkdtempSync(join(tmpdir(), 'help-examples-'));
  cliEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: fx.env.address,
    TEMPORAL_NAMESPACE: fx.env.namespace ?? 'default',
    RUNBOOKS_TASK_QUEUE: fx.worker.taskQueue,
    // For `inputs --discover`: the simulator, as the worker reaches it.
    ...serviceEnv(fx.sim),
    RUNBOOKS_DEBUG: '',
  };
}, 180_000);

afterAll(async () => {
  await fx?.env.client.schedule
    .getHandle('nightly-cost-export')
    .delete()
    .catch(() => undefined);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await teardownE2E(fx);
}, 60_000);

/** A cost export under `id`, run by the worker to its end. */
async function finishedRun(id: string): Promise<void> {
  const handle = await fx.env.client.workflow.start('costExport', {
    taskQueue: fx.worker.taskQueue,
    workflowId: id,
    args: [{ window: 'previous-day' }],
  });
  await handle.result();
}

/** A run under `id` that stays open: no worker polls its queue. */
async function openRun(id: string): Promise<void> {
  await fx.env.client.workflow.start('costExport', {
    taskQueue: `nobody-${randomUUID()}`,
    workflowId: id,
    args: [{ window: 'previous-day' }],
  });
}

test('every example is run here or named with where it runs', () => {
  const classified = [...RUN_HERE.map(([example]) => example), ...Object.keys(NOT_HERE)].sort();
  const examples = [...new Set(everyExample().map(([, example]) => example))].sort();
  expect(classified).toEqual(examples);
});

// Objects, not rows: a row with no setup would pass jest a `done` callback in its place.
test.each(RUN_HERE.map(([example, before]) => ({ example, before })))(
  '$example',
  async ({ example, before }) => {
    await before?.();
    // A file an example writes is the scratch folder's; a later command of it reads it there.
    const files = new Map<string, string>();
    for (const { argv, writes } of invocations(example)) {
      const given = argv.map((word) => files.get(word) ?? word);
      // A child process, as a shell runs it: the worker in this one answers it.
      const result = await runCliFromSourceAsync(given, cliEnv);
      // Notes may go to standard error (a backfill says what it waits for); a failure shows it.
      const failed = result.status === 0 ? {} : { stderr: result.stderr };
      expect({ argv, status: result.status, ...failed }).toEqual({ argv, status: 0 });
      if (writes !== undefined) {
        const path = join(scratch, writes.replace(/[^\w.-]/g, '_'));
        writeFileSync(path, result.stdout);
        files.set(writes, path);
      }
    }
  },
  120_000,
);
