// Traces end to end: with OTEL_* set, one trace runs from the CLI's start (its own client, operator/connection.ts)
// through the workflow and its activities to the HTTP calls to the service, all in an in-memory exporter.
import { randomUUID } from 'node:crypto';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { connectTemporal, type TemporalSession } from '../../operator/connection';
import { startRunbook } from '../../operator/start-run';
import { installTracing } from '../../runtime/tracing-sdk';
import { eventually, setupE2E, teardownE2E, type E2E } from './helpers';

const exporter = new InMemorySpanExporter();
let fx: E2E;
let cli: TemporalSession;

beforeAll(async () => {
  // One provider per process: the CLI's connectTemporal and the worker both find this one.
  const tracing = installTracing({ serviceName: 'runbooks-e2e', spanProcessor: new SimpleSpanProcessor(exporter) });
  fx = await setupE2E({ worker: { tracing } });
  cli = await connectTemporal({
    TEMPORAL_ADDRESS: fx.env.address,
    TEMPORAL_NAMESPACE: fx.env.namespace ?? 'default',
    OTEL_TRACES_EXPORTER: 'otlp',
  });
}, 120_000);

afterAll(async () => {
  await cli?.close();
  await teardownE2E(fx);
}, 60_000);

const hex = (span: ReadableSpan) => span.spanContext().spanId;

test('one trace from `runbooks start` through the workflow and its activities to the service calls', async () => {
  const workflowId = `cost-export-traced-${randomUUID()}`;
  const started = await startRunbook(
    cli.client,
    fx.worker.taskQueue,
    'costExport',
    { window: 'previous-day' },
    workflowId,
  );
  await cli.client.workflow.getHandle(started.workflowId, started.runId).result();

  // The workflow's spans reach the exporter through the worker's sink, after the activation that ends them.
  const spans = await eventually('the RunWorkflow span', () => {
    const all = exporter.getFinishedSpans();
    return all.some((s) => s.name === 'RunWorkflow:costExport') && all;
  });
  const start = spans.find((s) => s.name === 'StartWorkflow:costExport');
  expect(start).toBeDefined();
  const traceId = start!.spanContext().traceId;
  const trace = spans.filter((s) => s.spanContext().traceId === traceId);
  const byId = new Map(trace.map((s) => [hex(s), s]));
  const parentOf = (s: ReadableSpan) => (s.parentSpanId === undefined ? undefined : byId.get(s.parentSpanId));

  // Client start → workflow run.
  const run = trace.find((s) => s.name === 'RunWorkflow:costExport');
  expect(run && parentOf(run)?.name).toBe('StartWorkflow:costExport');

  // Workflow run → activity runs (through the workflow's StartActivity spans).
  const activities = trace.filter((s) => s.name.startsWith('RunActivity:'));
  expect(activities.length).toBeGreaterThan(0);
  for (const activity of activities) {
    const scheduled = parentOf(activity);
    expect(scheduled?.name).toBe(activity.name.replace('RunActivity:', 'StartActivity:'));
    expect(scheduled && parentOf(scheduled)).toBe(run);
  }

  // Activity run → one client span per HTTP call, named by its endpoint template, with method and status.
  const calls = trace.filter((s) => / \/v1\//.test(s.name));
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    expect(parentOf(call)?.name).toMatch(/^RunActivity:/);
    expect(call.name).not.toMatch(/[0-9a-f]{8}-/); // IDs never appear, only {id}
    expect(call.attributes['http.request.method']).toBe(call.name.split(' ')[0]);
    expect(call.attributes['url.template']).toBe(call.name.split(' ')[1]);
    expect(typeof call.attributes['http.response.status_code']).toBe('number');
  }
  expect(calls.map((c) => c.name)).toContain('POST /v1/cost-data');

  // Every span of this run belongs to the one trace.
  const ofThisRun = spans.filter((s) => s.attributes.workflowId === workflowId);
  expect(ofThisRun.length).toBeGreaterThan(0);
  expect(ofThisRun.every((s) => s.spanContext().traceId === traceId)).toBe(true);
}, 90_000);
