// Encrypted history end to end: with the codec on, the server stores ciphertext only (payloads and failures), and the
// CLI's client (with the same key) still starts runbooks and reads their results and failure messages.
import { randomBytes } from 'node:crypto';
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { connectTemporal, type TemporalSession } from '../../operator/connection';
import { statusQuery } from '../../contracts';
import { costExport, queryExport } from '../../runbooks/workflows';
import { codecDataConverter, ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../runtime/codec';
import { loadCodecKeys } from '../../runtime/config';
import { failureOf, queryExportInput, queryTarget, e2eSuite, startWorker, type RunningWorker } from './helpers';

let worker: RunningWorker;
let cli: TemporalSession;
const fx = e2eSuite({}, async () => {
  await cli?.close();
  await worker?.stop();
});

beforeAll(async () => {
  const env = {
    TEMPORAL_ADDRESS: fx.env.address,
    TEMPORAL_NAMESPACE: fx.env.namespace ?? 'default',
    RUNBOOKS_CODEC_KEY: `e2e-1:${randomBytes(32).toString('base64')}`,
  };
  worker = await startWorker(fx, { dataConverter: codecDataConverter(loadCodecKeys(env)) });
  cli = await connectTemporal(env);
}, 120_000);

const text = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('utf8');

/**
 * Every payload of a raw history with where it sits. Search attributes are skipped: the server indexes them, so
 * Temporal never passes them through a codec (they hold the runbook kind and resource ID, never data).
 */
function payloadsOf(value: unknown, path = ''): { path: string; payload: Payload }[] {
  if (!value || typeof value !== 'object' || value instanceof Uint8Array) return [];
  if ('metadata' in value && 'data' in value) return [{ path, payload: value as Payload }];
  return Object.entries(value).flatMap(([key, child]) =>
    key === 'searchAttributes' ? [] : payloadsOf(child, path ? `${path}.${key}` : key),
  );
}

function isJson(data: string): boolean {
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
}

/** Payloads of a run's stored history that are not ciphertext under our key, or that show known plaintext. */
async function readablePayloads(workflowId: string, known: string[]): Promise<string[]> {
  const { events } = await fx.env.client.workflow.getHandle(workflowId).fetchHistory();
  const found = (events ?? []).flatMap((event, i) => payloadsOf(event, `event ${i + 1}`));
  // Input, activity arguments and results, result: at least those four.
  expect(found.length).toBeGreaterThanOrEqual(4);
  return found
    .filter(({ path, payload }) => {
      const data = text(payload.data);
      // The SDK's core writes patch markers past the codec; they hold only the patch's name.
      if (path.includes('.patch-data.') && /^\{"id":"[\w-]+","deprecated":(true|false)\}$/.test(data)) return false;
      return (
        text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING ||
        text(payload.metadata?.[KEY_ID_METADATA]) !== 'e2e-1' ||
        isJson(data) ||
        known.some((k) => data.includes(k))
      );
    })
    .map(({ path, payload }) => `${path}: ${text(payload.metadata?.encoding)} ${text(payload.data).slice(0, 200)}`);
}

test('with the codec on, no history payload of a cost export is readable; the CLI client reads the result', async () => {
  const workflowId = `cost-export-encrypted-${Date.now()}`;
  const handle = await cli.client.workflow.start(costExport, {
    taskQueue: worker.taskQueue,
    workflowId,
    args: [{ window: 'previous-day', options: { groupBy: 'CLOUD_PROVIDER' } }],
  });
  const result = await handle.result();
  expect(result.export.rows).toBeGreaterThan(0);
  expect(result.export.path).toContain(fx.outputDir);
  // Queries go through the codec too.
  expect((await handle.query(statusQuery)).phase).toBe('completed');

  const known = ['previous-day', 'CLOUD_PROVIDER', fx.outputDir, result.export.sha256, 'rows'];
  expect(await readablePayloads(workflowId, known)).toEqual([]);

  // Without the key, the same result cannot be read.
  const plain: unknown = await fx.env.client.workflow
    .getHandle(workflowId)
    .result()
    .then(
      (value: unknown) => value,
      (e: unknown) => e,
    );
  expect(plain).toBeInstanceOf(Error);
});

test('a query export (several activities, a heartbeating export) leaves no readable payload either', async () => {
  const db = await queryTarget(fx, 'customers');
  const sql = 'SELECT id, name, email FROM customers ORDER BY id';
  const workflowId = `query-export-encrypted-${Date.now()}`;
  const result = await cli.client.workflow.execute(queryExport, {
    taskQueue: worker.taskQueue,
    workflowId,
    args: [queryExportInput(db, sql)],
  });
  expect(result.export.rows).toBeGreaterThan(0);
  const known = [sql, 'customers', db.databaseName, db.restoreAccountId, fx.outputDir, result.export.sha256];
  expect(await readablePayloads(workflowId, known)).toEqual([]);
});

/** A run's history as the server stores it: straight from the frontend, no data converter on the way. */
async function rawHistory(workflowId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await fx.env.connection.workflowService.getWorkflowExecutionHistory({
      namespace: fx.env.namespace ?? 'default',
      execution: { workflowId },
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** Every text in `value` (strings, and bytes read as UTF-8), but search attributes, which Temporal never encodes. */
function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value instanceof Uint8Array) return [text(value)];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => (key === 'searchAttributes' ? [] : textsOf(child)));
}

/** Every failure in a history (an activity's, the workflow's, their causes), as stored. */
function failuresOf(value: unknown): temporal.api.failure.v1.IFailure[] {
  if (!value || typeof value !== 'object' || value instanceof Uint8Array) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === 'failure' || key === 'cause'
      ? [child as temporal.api.failure.v1.IFailure, ...failuresOf(child)]
      : failuresOf(child),
  );
}

test('a failing query export (a missing snapshot) stores its failures encrypted; the CLI still shows why', async () => {
  const db = await queryTarget(fx, 'customers');
  const missingSnapshot = `${db.snapshotId}-gone-${randomBytes(4).toString('hex')}`;
  const sql = 'SELECT id, name FROM customers WHERE note = 11111111-secret-query';
  const workflowId = `query-export-encrypted-failure-${Date.now()}`;
  const handle = await cli.client.workflow.start(queryExport, {
    taskQueue: worker.taskQueue,
    workflowId,
    args: [{ ...queryExportInput(db, sql), snapshotId: missingSnapshot }],
  });
  // The CLI decodes with the same converter: the message names the snapshot, as without encryption.
  const failure = await failureOf(handle);
  expect(failure.message).toContain(missingSnapshot);

  const events = await rawHistory(workflowId);
  const failures = failuresOf(events);
  const activityFailed = events.filter((e) => e.activityTaskFailedEventAttributes);
  const workflowFailed = events.filter((e) => e.workflowExecutionFailedEventAttributes);
  // Both failures the issue measured in clear: the activity's and the workflow's.
  expect(activityFailed.length).toBeGreaterThanOrEqual(1);
  expect(workflowFailed).toHaveLength(1);
  expect(failures.length).toBeGreaterThanOrEqual(2);
  for (const f of failures) {
    expect({ message: f.message, stackTrace: f.stackTrace }).toEqual({ message: 'Encoded failure', stackTrace: '' });
    expect(text(f.encodedAttributes?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
  }
  // No failure text, request path, project, snapshot, query, database, bucket or secret is stored in clear.
  const stored = textsOf(events).join('\n');
  const secrets = [fx.sim.clientSecret, fx.sim.clientId];
  const plain = [failure.message, fx.sim.projectId, '/v1/', sql, db.databaseName, db.bucketName, db.restoreAccountId];
  const failureText = textsOf(failures).join('\n');
  expect([...plain, missingSnapshot, ...secrets].filter((k) => failureText.includes(k))).toEqual([]);
  // The snapshot ID is the run's workflow ID's business only when the run is named after it; here it is not.
  expect([...plain, missingSnapshot, ...secrets].filter((k) => stored.includes(k))).toEqual([]);
});
