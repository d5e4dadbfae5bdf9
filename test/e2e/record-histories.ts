// With RUNBOOKS_RECORD_HISTORIES=<dir>, each e2e file leaves the history of every run it closed in <dir>/<file>/,
// for `npm run histories:record` to pick replay fixtures from. Runs still open are skipped: their end is unknown.
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export const RECORD_HISTORIES_ENV = 'RUNBOOKS_RECORD_HISTORIES';

/** Writes every closed run's history (the SDK's JSON form) to the recording folder; does nothing when it is unset. */
export async function recordHistories(client: Client): Promise<number> {
  const root = process.env[RECORD_HISTORIES_ENV];
  if (!root) return 0;
  const testFile = basename(expect.getState().testPath ?? 'unknown', '.test.ts');
  // A file that runs in both dialects records each run apart.
  const dialect = process.env.RUNBOOKS_TEST_DIALECT;
  const dir = join(root, dialect && dialect !== 'neutral' ? `${testFile}.${dialect}` : testFile);
  await mkdir(dir, { recursive: true });
  let written = 0;
  for await (const execution of client.workflow.list()) {
    if (execution.status.name === 'RUNNING') continue;
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    const file = `${execution.workflowId}--${execution.runId}.json`.replace(/[^\w.-]/g, '_');
    await writeFile(join(dir, file), historyToJSON(history));
    written += 1;
  }
  return written;
}
